package mcp

import (
	"context"
	"testing"

	"github.com/tetherdev/tether/tools"
)

// BenchmarkCallWithProgress measures one in-memory call of a foreign
// server that sends 10 progress notifications, all delivered before the
// call returns.
func BenchmarkCallWithProgress(b *testing.B) {
	c := connectInProcess(b, foreignServer(b), ServerConfig{Rules: Rules{Allow: []string{"*"}}})
	var reg tools.Registry
	if _, err := c.Register(context.Background(), &reg); err != nil {
		b.Fatal(err)
	}
	n := 0
	ctx := tools.WithReporter(context.Background(), func(tools.Progress) { n++ })
	b.ReportAllocs()
	for b.Loop() {
		if res := reg.Execute(ctx, tools.Call{Name: "srv__count", Arguments: []byte(`{"n":10}`)}); res.IsError {
			b.Fatal(res.Text)
		}
	}
	if n != 10*b.N {
		b.Fatalf("%d reports for %d calls", n, b.N)
	}
}
