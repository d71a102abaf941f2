//go:build linux

package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// lateSaver is a workspace in which someone saves a file into out/ just
// after the command ended, while its change is being recorded: on the
// first listing of out/ the file appears, with a change time after the
// listing began.
type lateSaver struct {
	listingFiles
	saved bool
}

func (f *lateSaver) ReadDir(name string) ([]fs.DirEntry, error) {
	if filepath.ToSlash(name) == "out" && !f.saved {
		f.saved = true
		began := time.Now()
		p := filepath.Join(f.dir, "out", "theirs.txt")
		os.WriteFile(p, []byte("someone else's\n"), 0o644)
		// The kernel's clock for file times ticks coarsely: change the
		// inode again until its stamp is past began.
		for i := 0; ; i++ {
			fi, err := os.Lstat(p)
			if err != nil {
				return nil, err
			}
			if ct, _ := changeTime(fi); ct.After(began) {
				break
			}
			os.Chmod(p, fs.FileMode(0o644^(i%2)))
		}
	}
	return f.listingFiles.ReadDir(name)
}

// A file saved into a directory the command created, after the command
// ended, is not taken for the command's: undo removes the command's file
// and leaves that one (and so the directory).
func TestFileSavedAfterTheCommandIsNotUndone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := &lateSaver{listingFiles: newListingFiles(t, dir)}
	m, err := New(files, NewMemoryStore())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Begin(ctx, "s", "")
	call := Call{ID: "call_1", Tool: "run_terminal_command"}
	if err := c.SnapshotFor(ctx, call, "out"); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "out"), 0o755) // the command
	os.WriteFile(filepath.Join(dir, "out", "mine.txt"), []byte("the command's\n"), 0o644)
	if err := c.Record(ctx, call, "out"); err != nil {
		t.Fatal(err)
	}
	if !files.saved {
		t.Fatal("Record did not list out/")
	}
	rep, err := c.Undo(ctx, UndoOptions{})
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if !slices.Equal(rep.Removed, []string{"out/mine.txt"}) {
		t.Errorf("removed %v, want only the command's file", rep.Removed)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", "theirs.txt")); err != nil || string(b) != "someone else's\n" {
		t.Errorf("the file saved after the command: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "mine.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the command's file stayed: %v", err)
	}
}
