package checkpoint_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/safety"
)

// A command replaced the agent's file with a symbolic link to another
// file of the workspace (ln -sf other.txt a.txt, as in the symlink-follow
// advisories of other agents' restore paths). Undo puts the regular file
// back in the link's place and leaves the link's target untouched.
func TestUndoReplacesALinkNotItsTarget(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("agent's file\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.txt"), []byte("someone's notes\n"), 0o644)
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m, err := checkpoint.New(ws, checkpoint.NewMemoryStore())
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := m.Begin(ctx, "s", "")
	call := checkpoint.Call{ID: "c", Tool: "run_command"}
	if err := cp.SnapshotFor(ctx, call, "a.txt"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "a.txt"))
	if err := os.Symlink("other.txt", filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if err := cp.Record(ctx, call, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Undo(ctx, checkpoint.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "other.txt")); string(got) != "someone's notes\n" {
		t.Errorf("other.txt = %q: undo wrote through the link", got)
	}
	fi, err := os.Lstat(filepath.Join(dir, "a.txt"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("a.txt after undo: %v, %v; want a regular file", fi, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "agent's file\n" {
		t.Errorf("a.txt = %q", got)
	}
}
