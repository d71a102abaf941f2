package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestRecoverInterruptedChange plays the two crash windows of the
// write-ahead protocol: the record is committed but the write never
// landed, and the write landed but was never confirmed.
func TestRecoverInterruptedChange(t *testing.T) {
	ctx := context.Background()
	for _, landed := range []bool{false, true} {
		t.Run(fmt.Sprintf("landed=%v", landed), func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v1\n"), 0o644)
			store := NewMemoryStore()
			m1, _ := New(newRootFiles(t, dir), store)
			c, _ := m1.Begin(ctx, "s", "")
			if err := c.WriteFile(ctx, call1, "a.txt", []byte("v2\n"), 0); err != nil {
				t.Fatal(err)
			}
			// Forge what a kill between "record" and "confirm" of a third
			// version leaves behind.
			v2 := Image{Exists: true, Hash: hashOf([]byte("v2\n")), Mode: 0o644}
			v3 := Image{Exists: true, Hash: hashOf([]byte("v3\n")), Mode: 0o644}
			rec := c.Records()[0]
			rec.Post = v3
			err := store.Commit(ctx, c.ID(), Batch{Blobs: map[string][]byte{v3.Hash: []byte("v3\n")}, Files: []FileRecord{rec},
				Changes: []Change{{Checkpoint: c.ID(), Seq: 9, Path: "a.txt", Op: OpWrite, Before: v2, After: v3, Pending: true}}})
			if err != nil {
				t.Fatal(err)
			}
			if landed {
				os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v3\n"), 0o644)
			}
			m2, _ := New(newRootFiles(t, dir), store) // a new process
			c2, err := m2.Open(ctx, c.ID())
			if err != nil {
				t.Fatal(err)
			}
			changes, _ := store.Changes(ctx, c.ID())
			wantChanges := 1
			if landed {
				wantChanges = 2
			}
			if len(changes) != wantChanges || changes[len(changes)-1].Pending {
				t.Errorf("changes after recovery = %+v", changes)
			}
			if _, err := c2.Undo(ctx, UndoOptions{}); err != nil {
				t.Fatalf("Undo after recovery = %v", err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "v1\n" {
				t.Errorf("a.txt = %q, want v1", got)
			}
		})
	}
}

// TestConcurrentSessions runs many sessions at once in one process (run
// with -race), each writing, diffing and undoing its own files.
func TestConcurrentSessions(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, open func(t *testing.T) Store) {
		const sessions, writes = 8, 10
		tree := map[string]string{}
		for i := range sessions {
			tree[fmt.Sprintf("s%d.txt", i)] = fmt.Sprintf("original %d\n", i)
		}
		e := newEnv(t, open(t), tree)
		cps := make([]*Checkpoint, sessions)
		var wg sync.WaitGroup
		errs := make(chan error, sessions*writes*2)
		for i := range sessions {
			wg.Go(func() {
				c, err := e.m.Begin(ctx, fmt.Sprintf("session-%d", i), "")
				if err != nil {
					errs <- err
					return
				}
				cps[i] = c
				for j := range writes {
					if err := c.WriteFile(ctx, Call{ID: fmt.Sprint(j)}, fmt.Sprintf("s%d.txt", i), []byte(fmt.Sprintf("s%d w%d\n", i, j)), 0); err != nil {
						errs <- err
					}
					if err := c.WriteFile(ctx, Call{ID: fmt.Sprint(j)}, fmt.Sprintf("new/s%d-%d.txt", i, j), []byte("x"), 0); err != nil {
						errs <- err
					}
					if _, err := c.Diff(ctx); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			return
		}
		var uwg sync.WaitGroup
		for _, c := range cps {
			uwg.Go(func() {
				if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
					t.Error(err)
				}
			})
		}
		uwg.Wait()
		mustEqualTree(t, e.tree(), tree)
	})
}

// TestUndoSince undoes per-turn checkpoints that touched the same file:
// one at a time the older one would conflict; newest first, both undo.
func TestUndoSince(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, NewMemoryStore(), map[string]string{"a.txt": "v0\n"})
	var turns []*Checkpoint
	for i := 1; i <= 3; i++ {
		c, _ := e.m.Begin(ctx, "chat", fmt.Sprint("turn ", i))
		if err := c.WriteFile(ctx, call1, "a.txt", []byte(fmt.Sprintf("v%d\n", i)), 0); err != nil {
			t.Fatal(err)
		}
		turns = append(turns, c)
	}
	other, _ := e.m.Begin(ctx, "other-chat", "")
	other.WriteFile(ctx, call1, "b.txt", []byte("b\n"), 0)

	if _, err := turns[1].Undo(ctx, UndoOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("undoing turn 2 alone = %v, want a conflict (turn 3 changed the file since)", err)
	}
	rep, err := e.m.UndoSince(ctx, turns[1].ID(), UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Restored) != 2 {
		t.Errorf("Restored = %v, want two restores", rep.Restored)
	}
	mustEqualTree(t, e.tree(), map[string]string{"a.txt": "v1\n", "b.txt": "b\n"})
	if turns[0].Info().State != StateOpen || turns[2].Info().State != StateUndone {
		t.Errorf("states: %s %s %s", turns[0].Info().State, turns[1].Info().State, turns[2].Info().State)
	}
	if err := e.m.Delete(ctx, turns[0].ID()); err != nil {
		t.Fatal(err)
	}
	if err := turns[0].WriteFile(ctx, call1, "a.txt", nil, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Delete = %v, want ErrClosed", err)
	}
	if _, err := turns[0].Undo(ctx, UndoOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("undo after Delete = %v, want ErrClosed", err)
	}
	if _, err := e.m.UndoSince(ctx, "cp_nope", UndoOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("UndoSince(unknown) = %v", err)
	}
}

func TestPrune(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	e := newEnv(t, s, map[string]string{"a.txt": "a\n"})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e.m.now = func() time.Time { return now }
	kept, _ := e.m.Begin(ctx, "s", "kept")
	kept.WriteFile(ctx, call1, "a.txt", []byte("big kept content\n"), 0)
	kept.Keep(ctx)
	undone, _ := e.m.Begin(ctx, "s", "undone")
	undone.WriteFile(ctx, call1, "b.txt", []byte("undone content\n"), 0)
	undone.Undo(ctx, UndoOptions{})
	open, _ := e.m.Begin(ctx, "s", "open")
	open.WriteFile(ctx, call1, "c.txt", []byte("open content\n"), 0)
	now = now.Add(time.Hour)
	recent, _ := e.m.Begin(ctx, "s", "recent")
	recent.Keep(ctx)

	n, err := e.m.Prune(ctx, now)
	if err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want the kept and the undone old checkpoints", n, err)
	}
	list, _ := e.m.List(ctx, "s")
	if len(list) != 2 || list[0].Label != "open" || list[1].Label != "recent" {
		t.Errorf("left after Prune: %+v", list)
	}
	if _, err := s.Blob(ctx, hashOf([]byte("undone content\n"))); !errors.Is(err, ErrNotFound) {
		t.Error("the pruned checkpoints' blobs were kept")
	}
	if _, err := open.Undo(ctx, UndoOptions{}); err != nil {
		t.Errorf("the open checkpoint no longer undoes: %v", err)
	}
}
