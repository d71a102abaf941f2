package main

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherdev/tether/examples/internal/folders"
)

// TestFolderFlag: with -folder the agent edits a further root by its name,
// and the checkpoint's undo restores that folder's file on disk.
func TestFolderFlag(t *testing.T) {
	lib := t.TempDir()
	util := filepath.Join(lib, "util.go")
	if err := os.WriteFile(util, []byte("package lib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"lib/util.go","content":"package lib // edited\n"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	ts := startServer(t, script, map[string]string{"main.go": "package main\n"}, func(o *options) {
		var fl folders.Flag
		if err := fl.Set("lib=" + lib); err != nil {
			t.Fatal(err)
		}
		o.folders = fl
	})
	session := ts.newSession(t)
	cp := ts.runTurn(t, session, "edit lib")
	if b, _ := os.ReadFile(util); string(b) != "package lib // edited\n" {
		t.Fatalf("lib/util.go = %q after the run", b)
	}
	if cp == "" {
		t.Fatal("the run made no checkpoint")
	}
	if code, body := ts.post(t, "/api/checkpoint", map[string]any{"session": session, "checkpoint": cp, "action": "undo_file", "path": "lib/util.go"}); code != http.StatusOK {
		t.Fatalf("undo lib/util.go: %d %v", code, body)
	}
	if b, _ := os.ReadFile(util); string(b) != "package lib\n" {
		t.Errorf("lib/util.go = %q after undo, want the original", b)
	}
}
