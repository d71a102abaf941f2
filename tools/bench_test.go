package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkPrepareLargeWrite measures normalising a write call carrying
// 1 MiB of content under an alias key: the arguments are decoded member
// by member (to see a key given twice) and encoded again.
func BenchmarkPrepareLargeWrite(b *testing.B) {
	type writeArgs struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	var r Registry
	if err := r.Register(New("write_file", "Write.", func(context.Context, writeArgs) (Result, error) { return Text("ok"), nil })); err != nil {
		b.Fatal(err)
	}
	content, _ := json.Marshal(strings.Repeat("line of text in a file\n", 1<<20/23))
	args := json.RawMessage(`{"filePath":"notes.md","content":` + string(content) + `}`)
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Prepare(Call{Name: "write_file", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
}
