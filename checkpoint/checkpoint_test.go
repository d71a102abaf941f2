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

type env struct {
	t     *testing.T
	dir   string
	files *rootFiles
	store Store
	m     *Manager
}

func newEnv(t *testing.T, store Store, tree map[string]string) *env {
	t.Helper()
	dir := t.TempDir()
	for name, content := range tree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := newRootFiles(t, dir)
	m, err := New(files, store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &env{t: t, dir: dir, files: files, store: store, m: m}
}

// tree returns every regular file under the workspace, .git excluded.
func (e *env) tree() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			e.t.Fatal(err)
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				e.t.Fatal(err)
			}
			rel, _ := filepath.Rel(e.dir, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return out
}

func (e *env) write(name, content string) {
	e.t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) begin() *Checkpoint {
	e.t.Helper()
	c, err := e.m.Begin(context.Background(), "session", "turn")
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func mustEqualTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s missing", k)
		} else if g != v {
			t.Errorf("%s = %q, want %q", k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected file %s = %q", k, got[k])
		}
	}
}

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

func TestBadPaths(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, NewMemoryStore(), map[string]string{"a.txt": "a", ".git/config": "x", "sub/.git/HEAD": "y"})
	os.Mkdir(filepath.Join(e.dir, "adir"), 0o755)
	os.Symlink("a.txt", filepath.Join(e.dir, "link"))
	c := e.begin()
	for _, tc := range []struct {
		path string
		want error
	}{
		{".git/config", ErrProtectedPath},
		{"sub/.git/HEAD", ErrProtectedPath},
		{".GIT/config", ErrProtectedPath},
		{"x/../.git/config", ErrProtectedPath},
		{"../outside.txt", ErrInvalidPath},
		{"/etc/passwd", ErrInvalidPath},
		{"", ErrInvalidPath},
		{".", ErrInvalidPath},
		{"a\x00b", ErrInvalidPath},
		{"adir", ErrNotRegular},
		{"link", ErrNotRegular},
	} {
		if err := c.WriteFile(ctx, call1, tc.path, []byte("pwned"), 0); !errors.Is(err, tc.want) {
			t.Errorf("WriteFile(%q) = %v, want %v", tc.path, err, tc.want)
		}
	}
	if err := c.Remove(ctx, call1, "missing.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove(missing) = %v, want fs.ErrNotExist", err)
	}
	if err := c.Rename(ctx, call1, "a.txt", ".git/a"); !errors.Is(err, ErrProtectedPath) {
		t.Errorf("Rename into .git = %v", err)
	}
	if got := e.tree(); got[".git/config"] != "" || got["a.txt"] != "a" {
		t.Errorf("workspace changed by refused calls: %v", got)
	}
	if d, _ := c.Diff(ctx); len(d.Files) != 0 {
		t.Errorf("refused calls left records: %+v", d.Files)
	}
}

func TestTooLarge(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2048), 0o644)
	m, err := New(newRootFiles(t, dir), NewMemoryStore(), WithMaxFileSize(1024))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Begin(ctx, "s", "")
	if err := c.WriteFile(ctx, call1, "big", []byte("x"), 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("snapshot of a big file = %v, want ErrTooLarge", err)
	}
	if err := c.WriteFile(ctx, call1, "new", make([]byte, 2048), 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big write = %v, want ErrTooLarge", err)
	}
	if _, err := New(nil, NewMemoryStore()); err == nil {
		t.Error("New(nil files) succeeded")
	}
	if _, err := New(newRootFiles(t, dir), nil); err == nil {
		t.Error("New(nil store) succeeded")
	}
	if _, err := New(newRootFiles(t, dir), NewMemoryStore(), WithMaxFileSize(0)); err == nil {
		t.Error("WithMaxFileSize(0) accepted")
	}
}

func TestPreImagesDeduplicated(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	e := newEnv(t, s, map[string]string{"a.txt": "same\n", "b.txt": "same\n"})
	for range 3 {
		c := e.begin()
		c.WriteFile(ctx, call1, "a.txt", []byte("new\n"), 0)
		c.WriteFile(ctx, call1, "b.txt", []byte("new\n"), 0)
		if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.blobs); n != 2 {
		t.Errorf("store holds %d blobs after 3 checkpoints of 2 identical files, want 2 (pre and post)", n)
	}
}

// failingFiles fails every WriteFile, as a full disk would.
type failingFiles struct{ *rootFiles }

func (failingFiles) WriteFile(string, []byte, fs.FileMode) error { return errors.New("disk full") }

func TestFailedWriteLeavesNoRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	m, _ := New(failingFiles{newRootFiles(t, dir)}, NewMemoryStore())
	c, _ := m.Begin(ctx, "s", "")
	err := c.WriteFile(ctx, call1, "a.txt", []byte("b"), 0)
	var pe *PathError
	if !errors.As(err, &pe) || pe.Path != "a.txt" {
		t.Fatalf("WriteFile = %v, want a PathError for a.txt", err)
	}
	if ch, _ := c.Changes(ctx); len(ch) != 0 {
		t.Errorf("failed write left changes: %+v", ch)
	}
	if d, _ := c.Diff(ctx); len(d.Files) != 0 {
		t.Errorf("failed write shows in the diff: %+v", d.Files)
	}
	if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
		t.Errorf("Undo after a failed write = %v", err)
	}
}

func TestSnapshotAndRecord(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, NewMemoryStore(), map[string]string{"go.mod": "module x\n"})
	c := e.begin()
	shell := Call{ID: "call_9", Tool: "run_command"}
	if err := c.Record(ctx, shell, "go.mod"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Record without Snapshot = %v, want ErrNotFound", err)
	}
	c.Snapshot(ctx, "go.mod")
	c.Snapshot(ctx, "go.sum")
	e.write("go.mod", "module x\n\nrequire y v1\n") // the command changes files itself
	e.write("go.sum", "y v1 h1:abc\n")
	for _, p := range []string{"go.mod", "go.sum"} {
		if err := c.Record(ctx, shell, p); err != nil {
			t.Fatal(err)
		}
	}
	calls, err := c.Calls(ctx)
	if err != nil || len(calls) != 1 || calls[0].Call != shell || calls[0].Added != 3 || len(calls[0].Paths) != 2 {
		t.Errorf("Calls = %+v, %v", calls, err)
	}
	if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	mustEqualTree(t, e.tree(), map[string]string{"go.mod": "module x\n"})
}
