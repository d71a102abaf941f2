package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoverInterruptedRename forges the record a kill between "record"
// and "rename" leaves, with and without the rename having happened.
func TestRecoverInterruptedRename(t *testing.T) {
	ctx := context.Background()
	for _, landed := range []bool{false, true} {
		t.Run(fmt.Sprintf("landed=%v", landed), func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
			store := NewMemoryStore()
			m1, _ := New(newRootFiles(t, dir), store)
			c, _ := m1.Begin(ctx, "s", "")
			img := Image{Exists: true, Hash: hashOf([]byte("a\n")), Mode: 0o644}
			err := store.Commit(ctx, c.ID(), Batch{
				Blobs: map[string][]byte{img.Hash: []byte("a\n")},
				Files: []FileRecord{
					{Checkpoint: c.ID(), Path: "a.txt", Order: 1, Pre: img, Post: Image{}, Status: FilePending},
					{Checkpoint: c.ID(), Path: "b.txt", Order: 1, Post: img, Status: FilePending, RenamedFrom: "a.txt"},
				},
				Changes: []Change{{Checkpoint: c.ID(), Seq: 1, Path: "b.txt", From: "a.txt", Op: OpRename,
					After: img, FromBefore: img, Pending: true}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if landed {
				os.Rename(filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"))
			}
			m2, _ := New(newRootFiles(t, dir), store)
			c2, err := m2.Open(ctx, c.ID())
			if err != nil {
				t.Fatal(err)
			}
			changes, _ := c2.Changes(ctx)
			if landed != (len(changes) == 1) || (landed && changes[0].Pending) {
				t.Errorf("changes after recovery = %+v", changes)
			}
			d, _ := c2.Diff(ctx)
			if landed != (len(d.Files) == 1) {
				t.Errorf("diff after recovery = %+v", d.Files)
			}
			if _, err := c2.Undo(ctx, UndoOptions{}); err != nil {
				t.Fatalf("Undo = %v", err)
			}
			e := &env{t: t, dir: dir}
			mustEqualTree(t, e.tree(), map[string]string{"a.txt": "a\n"})
		})
	}
}

func TestCorruptPreImageIsNotRestored(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	e := newEnv(t, s, map[string]string{"a.txt": "a\n"})
	c := e.begin()
	c.WriteFile(ctx, call1, "a.txt", []byte("agent\n"), 0)
	s.blobs[hashOf([]byte("a\n"))] = []byte("bit rot\n")
	_, err := c.Undo(ctx, UndoOptions{})
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("Undo with a corrupt pre-image = %v, want an error saying so", err)
	}
	if got := e.tree()["a.txt"]; got != "agent\n" {
		t.Errorf("a.txt = %q; a corrupt pre-image must not be written", got)
	}
}

// TestUndoDecisionsAreLogged: skipping a file and forcing over one are
// security-relevant and go to the logger with their reasons.
func TestUndoDecisionsAreLogged(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	m, err := New(newRootFiles(t, dir), NewMemoryStore(), WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Begin(ctx, "s", "")
	c.WriteFile(ctx, call1, "a.txt", []byte("agent\n"), 0)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("human\n"), 0o644)
	_, err = c.Undo(ctx, UndoOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "a.txt") || !strings.Contains(err.Error(), "Force") {
		t.Errorf("conflict error %q should name the file and the way out", err)
	}
	c.Undo(ctx, UndoOptions{Force: true})
	for _, want := range []string{"undo skipped file to keep work the agent did not do", "path=a.txt", "forced undo overwrites", "force=true"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
	if _, err := New(newRootFiles(t, dir), NewMemoryStore(), WithLogger(nil)); err == nil {
		t.Error("WithLogger(nil) accepted")
	}
}
