package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/examples/internal/folders"
)

// TestFolderFlag: a -folder's files are offered for @ completion and
// attached under the folder's name, as the tools name them.
func TestFolderFlag(t *testing.T) {
	base := t.TempDir()
	app, lib := filepath.Join(base, "app"), filepath.Join(base, "lib")
	for _, d := range []string{app, filepath.Join(lib, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(app, "main.go"), "package main\n")
	writeFile(t, filepath.Join(lib, "util.go"), "package lib\n")
	writeFile(t, filepath.Join(lib, ".git", "HEAD"), "ref: refs/heads/main\n")
	t.Chdir(app)
	var fl folders.Flag
	if err := fl.Set(lib); err != nil {
		t.Fatal(err)
	}
	o := options{model: "script:" + filepath.Join(pkgDir, "testdata", "review.jsonl"), db: ":memory:", mode: "agent",
		approvalTimeout: time.Minute, folders: fl}
	a, err := openApp(context.Background(), o, nil, event.SinkFunc(func(context.Context, event.Event) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	files := a.workspaceFiles()
	if !slices.Contains(files, "main.go") || !slices.Contains(files, "lib/util.go") || slices.Contains(files, "lib/.git/HEAD") {
		t.Errorf("@ completion lists %v, want main.go and lib/util.go, no .git", files)
	}
	got := a.attachments("compare @main.go with @lib/util.go and @lib/../app/main.go")
	if len(got) != 2 || got[0].Path != "main.go" || got[1].Path != "lib/util.go" {
		t.Errorf("attachments = %+v, want main.go and lib/util.go", got)
	}
}
