package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

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

// lateFailFiles writes, then reports a failure, as a Workspace does when
// only the directory sync fails.
type lateFailFiles struct{ *rootFiles }

func (f lateFailFiles) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := f.rootFiles.WriteFile(name, data, perm); err != nil {
		return err
	}
	return errors.New("written, but syncing the directory failed")
}

func TestFailedWriteThatLandedIsRecorded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	root := newRootFiles(t, dir)
	m, _ := New(lateFailFiles{root}, NewMemoryStore())
	c, _ := m.Begin(ctx, "s", "")
	if err := c.WriteFile(ctx, call1, "a.txt", []byte("b"), 0); err == nil {
		t.Fatal("the Files error was swallowed")
	}
	if ch, _ := c.Changes(ctx); len(ch) != 1 || ch[0].Pending {
		t.Errorf("changes = %+v, want the landed write confirmed", ch)
	}
	m.files = root // restores go through a healthy Files
	if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
		t.Fatalf("Undo = %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "a" {
		t.Errorf("a.txt = %q, want a", got)
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

func TestCanceledContextWritesNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) Store) {
		e := newEnv(t, open(t), map[string]string{"a.txt": "a"})
		c := e.begin()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := c.WriteFile(ctx, call1, "a.txt", []byte("b"), 0); !errors.Is(err, context.Canceled) {
			t.Errorf("WriteFile(canceled) = %v, want context.Canceled", err)
		}
		mustEqualTree(t, e.tree(), map[string]string{"a.txt": "a"})
		if ch, _ := c.Changes(context.Background()); len(ch) != 0 {
			t.Errorf("changes recorded: %+v", ch)
		}
	})
}
