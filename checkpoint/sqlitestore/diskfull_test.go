package sqlitestore

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/tmpfstest"
)

// The store's file system fills while a checkpoint is in use (a real
// tmpfs, filled with a filler file). From SQLite's own disk-full testing
// ("How SQLite Is Tested" §4): the transaction that does not fit fails
// and leaves the database as it was, usable again once space returns.
// The checkpoint on top must not let anything change a file out of
// undo's reach: a write whose pre-image does not fit is refused with the
// file untouched, and a command's change that could not be recorded is
// still undone, from the disk.
func TestStoreOnFullDisk(t *testing.T) {
	ctx := context.Background()
	small := tmpfstest.Mount(t, 512<<10)
	dir := t.TempDir()
	noise := func(seed uint64, n int) []byte {
		r := rand.New(rand.NewPCG(seed, 1))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return b
	}
	os.WriteFile(filepath.Join(dir, "big.txt"), noise(1, 1<<20), 0o644)
	os.WriteFile(filepath.Join(dir, "cmd.txt"), []byte("before the command\n"), 0o600)
	want := tree(t, dir)

	db := filepath.Join(small, "cp.db")
	s, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.New(workspaceFiles(t, dir), s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Begin(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFile(ctx, call1, "note.txt", []byte("fits\n"), 0); err != nil {
		t.Fatal(err)
	}
	cmd := checkpoint.Call{ID: "call_2", Tool: "run_terminal_command"}
	if err := c.SnapshotFor(ctx, cmd, "cmd.txt"); err != nil {
		t.Fatal(err)
	}
	free := tmpfstest.Fill(t, small, 0)

	// The "command" writes more than the store's whole disk, so no
	// space SQLite already holds (free pages, a WAL it reuses) can take
	// it: the full disk is what refuses it.
	os.WriteFile(filepath.Join(dir, "cmd.txt"), noise(2, 1<<20), 0o600)
	if err := c.Record(ctx, cmd, "cmd.txt"); !isFull(err) {
		t.Fatalf("Record on a full store: %v, want SQLITE_FULL or ENOSPC", err)
	}
	// A file tool's write whose pre-image (1 MiB) does not fit.
	err = c.WriteFile(ctx, call1, "big.txt", []byte("small\n"), 0)
	if !isFull(err) {
		t.Fatalf("WriteFile on a full store: %v, want it refused for want of space", err)
	}
	if got := tree(t, dir)["big.txt"]; got != want["big.txt"] {
		t.Fatal("big.txt changed although its pre-image was not saved")
	}
	if err := c.SnapshotFor(ctx, cmd, "big.txt"); !isFull(err) {
		t.Fatalf("SnapshotFor on a full store: %v", err)
	}

	free()
	rep, err := c.Undo(ctx, checkpoint.UndoOptions{})
	if err != nil {
		t.Fatalf("undo once space returned: %v (%+v)", err, rep)
	}
	mustEqualTree(t, tree(t, dir), want)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The database is whole: it reopens and tells the same story.
	s2, err := Open(ctx, db)
	if err != nil {
		t.Fatalf("reopening the store that was full: %v", err)
	}
	defer s2.Close()
	info, err := s2.Info(ctx, c.ID())
	if err != nil || info.State != checkpoint.StateUndone {
		t.Fatalf("after reopening: %+v, %v", info, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".tether-*")); len(tmp) > 0 {
		t.Errorf("temporary files left in the workspace: %v", tmp)
	}
}

func isFull(err error) bool {
	return err != nil && (errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "SQLITE_FULL") ||
		strings.Contains(err.Error(), "database or disk is full"))
}
