package pdftools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

func TestReadPDFTool(t *testing.T) {
	root := t.TempDir()
	data, err := os.ReadFile("testdata/twocol.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "paper.pdf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := safety.OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tool := NewRead(ws)
	if !tool.Describe().ReadOnly {
		t.Error("read_pdf must be read-only")
	}

	tests := []struct {
		name, args string
		wantErr    string
		want       []string
		notWant    []string
	}{
		{"first pages", `{"path":"docs/paper.pdf","last_page":2}`, "",
			[]string{"docs/paper.pdf: pages 1-2 of 3", "--- Page 1 of 3 ---", "Left00: alpha bravo", "call read_pdf with first_page=3"},
			[]string{"Kestrel"}},
		{"alias page", `{"path":"docs/paper.pdf","page":3}`, "",
			[]string{"pages 3-3 of 3", "Kestrel"}, []string{"more pages"}},
		{"missing", `{"path":"docs/nope.pdf"}`, "does not exist", nil, nil},
		{"outside", `{"path":"../x.pdf"}`, "outside", nil, nil},
		{"past end", `{"path":"docs/paper.pdf","first_page":9}`, "has 3 pages", nil, nil},
		{"directory", `{"path":"docs"}`, "directory", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), tools.Call{Arguments: json.RawMessage(tt.args)})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("missing %q in\n%s", w, res.Text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(res.Text, w) {
					t.Errorf("unexpected %q in\n%s", w, res.Text)
				}
			}
			if res.Meta.Path != "docs/paper.pdf" {
				t.Errorf("meta path = %q", res.Meta.Path)
			}
		})
	}
}

// TestReadPDFProgress: read_pdf reports each page as it reads it, as
// read_file reports its chunks, and nothing for a call that fails.
func TestReadPDFProgress(t *testing.T) {
	root := t.TempDir()
	data, err := os.ReadFile("testdata/twocol.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "paper.pdf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := safety.OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tool := NewRead(ws)
	for _, tt := range []struct {
		args string
		want []tools.Progress
	}{
		{`{"path":"paper.pdf"}`, []tools.Progress{
			{Tool: ReadName, Path: "paper.pdf", Done: 1, Total: 3, Message: "Reading paper.pdf page 1 of 3"},
			{Tool: ReadName, Path: "paper.pdf", Done: 2, Total: 3, Message: "Reading paper.pdf page 2 of 3"},
			{Tool: ReadName, Path: "paper.pdf", Done: 3, Total: 3, Message: "Reading paper.pdf page 3 of 3"},
		}},
		{`{"path":"paper.pdf","first_page":2,"last_page":3}`, []tools.Progress{
			{Tool: ReadName, Path: "paper.pdf", Done: 1, Total: 2, Message: "Reading paper.pdf page 2 of 3"},
			{Tool: ReadName, Path: "paper.pdf", Done: 2, Total: 2, Message: "Reading paper.pdf page 3 of 3"},
		}},
		{`{"path":"paper.pdf","first_page":9}`, nil},
	} {
		var got []tools.Progress
		ctx := tools.WithReporter(context.Background(), func(p tools.Progress) { got = append(got, p) })
		_, _ = tool.Execute(ctx, tools.Call{Arguments: json.RawMessage(tt.args)})
		if len(got) != len(tt.want) {
			t.Errorf("%s: progress %+v, want %+v", tt.args, got, tt.want)
			continue
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], tt.want[i]) {
				t.Errorf("%s: report %d = %+v, want %+v", tt.args, i, got[i], tt.want[i])
			}
		}
	}
}
