package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tetherdev/tether/internal/procid"
)

// goneWriter names, as a temporary file does, a process that ran and
// ended.
func goneWriter(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start a process:", err)
	}
	start := procid.Start(cmd.Process.Pid)
	cmd.Wait()
	if start == "" {
		t.Skip("no /proc to tell a process's start time")
	}
	return fmt.Sprintf("%d.%s", cmd.Process.Pid, start)
}

// After a restart, the temporary files that writes of a dead process left
// beside a pending file are removed (whatever they hold: an undo's or a
// file tool's write, whose content the store may not know); a live
// process's, and an unrelated directory's, stay.
func TestDeadWritersTemporaryFilesRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "d"), 0o755)
	os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "a.txt"), []byte("v1\n"), 0o644)
	store := NewMemoryStore()
	m1, _ := New(newListingFiles(t, dir), store)
	c, _ := m1.Begin(ctx, "s", "")
	if err := c.Snapshot(ctx, "d/a.txt"); err != nil {
		t.Fatal(err)
	}
	dead := ".tether-" + goneWriter(t) + "-0123456789abcdef.tmp"
	live := ".tether-" + procid.Self() + "-fedcba9876543210.tmp"
	for _, p := range []string{"d/" + dead, "d/" + live, "elsewhere/" + dead} {
		os.WriteFile(filepath.Join(dir, p), []byte("half a wri"), 0o644)
	}
	m2, _ := New(newListingFiles(t, dir), store)
	if _, err := m2.Open(ctx, c.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "d", dead)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dead writer's temporary file beside a pending file stayed (err %v)", err)
	}
	for _, p := range []string{"d/" + live, "elsewhere/" + dead} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// A command killed with the agent had created a directory tree it was
// snapshotted for: after the restart the directory is the command's (not
// "not a regular file"), the files in it are removed by undo, and then
// the directories.
func TestInFlightCreatedDirectoryUndoneAfterRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m2, id := inFlight(t, dir, NewMemoryStore(), []string{"out/deep"}, func() {
		os.MkdirAll(filepath.Join(dir, "out", "deep", "more"), 0o755)
		os.WriteFile(filepath.Join(dir, "out", "deep", "new.txt"), []byte("made\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "out", "deep", "more", "x.txt"), []byte("x\n"), 0o644)
	})
	c, err := m2.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.Undo(ctx, UndoOptions{})
	if err != nil {
		t.Fatalf("undo: %v (report %+v)", err, rep)
	}
	slices.Sort(rep.Removed)
	if want := []string{"out/deep/more/x.txt", "out/deep/new.txt"}; !slices.Equal(rep.Removed, want) {
		t.Errorf("removed %v, want %v", rep.Removed, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "out")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directories the command made stayed (err %v)", err)
	}
}
