package pdftools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
