package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var call1 = Call{ID: "call_1", Tool: "write_file"}

// TestUndoRestoresEverything runs each kind of mutation and checks that
// Undo brings the workspace back byte for byte, on both stores.
func TestUndoRestoresEverything(t *testing.T) {
	ctx := context.Background()
	initial := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "dir/c.txt": "c\n", ".git/HEAD": "ref: refs/heads/main\n"}
	steps := []struct {
		name string
		do   func(c *Checkpoint) error
	}{
		{"overwrite", func(c *Checkpoint) error { return c.WriteFile(ctx, call1, "a.txt", []byte("A\n"), 0) }},
		{"overwrite twice", func(c *Checkpoint) error {
			if err := c.WriteFile(ctx, call1, "a.txt", []byte("A1\n"), 0); err != nil {
				return err
			}
			return c.WriteFile(ctx, call1, "a.txt", []byte("A2\n"), 0)
		}},
		{"create in new dirs", func(c *Checkpoint) error { return c.WriteFile(ctx, call1, "new/deep/n.txt", []byte("n\n"), 0o600) }},
		{"remove", func(c *Checkpoint) error { return c.Remove(ctx, call1, "dir/c.txt") }},
		{"rename to new path", func(c *Checkpoint) error { return c.Rename(ctx, call1, "b.txt", "moved/b2.txt") }},
		{"rename over existing", func(c *Checkpoint) error { return c.Rename(ctx, call1, "b.txt", "a.txt") }},
		{"rename chain", func(c *Checkpoint) error {
			if err := c.Rename(ctx, call1, "a.txt", "x.txt"); err != nil {
				return err
			}
			return c.Rename(ctx, call1, "x.txt", "y.txt")
		}},
		{"write then remove new", func(c *Checkpoint) error {
			if err := c.WriteFile(ctx, call1, "tmp.txt", []byte("t"), 0); err != nil {
				return err
			}
			return c.Remove(ctx, call1, "tmp.txt")
		}},
		{"remove then recreate", func(c *Checkpoint) error {
			if err := c.Remove(ctx, call1, "a.txt"); err != nil {
				return err
			}
			return c.WriteFile(ctx, call1, "a.txt", []byte("again\n"), 0)
		}},
	}
	forEachStore(t, func(t *testing.T, open func(t *testing.T) Store) {
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				e := newEnv(t, open(t), initial)
				c := e.begin()
				if err := st.do(c); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
					t.Fatal(err)
				}
				mustEqualTree(t, e.tree(), map[string]string{"a.txt": "a\n", "b.txt": "b\n", "dir/c.txt": "c\n"})
				for _, d := range []string{"new", "moved"} {
					if _, err := os.Stat(filepath.Join(e.dir, d)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("directory %s created by the agent survived undo", d)
					}
				}
				if c.Info().State != StateUndone {
					t.Errorf("state = %s, want undone", c.Info().State)
				}
				if err := c.WriteFile(ctx, call1, "a.txt", nil, 0); !errors.Is(err, ErrClosed) {
					t.Errorf("write after undo = %v, want ErrClosed", err)
				}
			})
		}
	})
}

func TestModeKept(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, NewMemoryStore(), map[string]string{"run.sh": "#!/bin/sh\n"})
	os.Chmod(filepath.Join(e.dir, "run.sh"), 0o755)
	c := e.begin()
	if err := c.WriteFile(ctx, call1, "run.sh", []byte("#!/bin/sh\necho hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(e.dir, "run.sh"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode after write = %v, want 0755 kept", fi.Mode().Perm())
	}
	if err := c.Remove(ctx, call1, "run.sh"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(filepath.Join(e.dir, "run.sh"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode after undo = %v, want 0755", fi.Mode().Perm())
	}
}

func TestUndoNeverDestroysForeignWork(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		between bool // foreign edit between two agent writes instead of after
	}{{"after last write", false}, {"between writes", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, NewMemoryStore(), map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			c := e.begin()
			if err := c.WriteFile(ctx, call1, "a.txt", []byte("agent\n"), 0); err != nil {
				t.Fatal(err)
			}
			if err := c.WriteFile(ctx, call1, "b.txt", []byte("agent b\n"), 0); err != nil {
				t.Fatal(err)
			}
			e.write("a.txt", "human\n")
			if tc.between {
				if err := c.WriteFile(ctx, call1, "a.txt", []byte("agent again\n"), 0); err != nil {
					t.Fatal(err)
				}
			}
			want := e.tree()["a.txt"]
			rep, err := c.Undo(ctx, UndoOptions{})
			var ce *ConflictError
			if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || len(ce.Skipped) != 1 || ce.Skipped[0].Path != "a.txt" {
				t.Fatalf("Undo = %v, want a ConflictError naming a.txt", err)
			}
			if !slices.Equal(rep.Restored, []string{"b.txt"}) {
				t.Errorf("Restored = %v, want [b.txt]", rep.Restored)
			}
			if got := e.tree(); got["a.txt"] != want || got["b.txt"] != "b\n" {
				t.Errorf("after undo: %v", got)
			}
			if c.Info().State != StateOpen {
				t.Errorf("state = %s, want open while a file is left", c.Info().State)
			}
			// Force overrides, once the user has seen the conflict.
			if _, err := c.Undo(ctx, UndoOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
			mustEqualTree(t, e.tree(), map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			if c.Info().State != StateUndone {
				t.Errorf("state = %s, want undone", c.Info().State)
			}
		})
	}
}

func TestUndoFileAndKeep(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, NewMemoryStore(), map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	c := e.begin()
	c.WriteFile(ctx, call1, "a.txt", []byte("A\n"), 0)
	c.WriteFile(ctx, call1, "b.txt", []byte("B\n"), 0)
	rep, err := c.UndoFile(ctx, "a.txt", UndoOptions{})
	if err != nil || !slices.Equal(rep.Restored, []string{"a.txt"}) {
		t.Fatalf("UndoFile = %+v, %v", rep, err)
	}
	mustEqualTree(t, e.tree(), map[string]string{"a.txt": "a\n", "b.txt": "B\n"})
	if _, err := c.UndoFile(ctx, "zzz.txt", UndoOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("UndoFile(untouched) = %v, want ErrNotFound", err)
	}
	// The agent may write an undone file again; undo returns to the original.
	if err := c.WriteFile(ctx, call1, "a.txt", []byte("A again\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := c.KeepFile(ctx, "b.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	mustEqualTree(t, e.tree(), map[string]string{"a.txt": "a\n", "b.txt": "B\n"})

	c2 := e.begin()
	c2.WriteFile(ctx, call1, "a.txt", []byte("kept\n"), 0)
	if err := c2.Keep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Undo(ctx, UndoOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Undo after Keep = %v, want ErrClosed", err)
	}
	if err := c2.WriteFile(ctx, call1, "a.txt", nil, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Keep = %v, want ErrClosed", err)
	}
	if got := e.tree()["a.txt"]; got != "kept\n" {
		t.Errorf("a.txt = %q after Keep", got)
	}
}
