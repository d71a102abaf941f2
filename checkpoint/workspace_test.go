package checkpoint_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/safety"
)

// The real Files: *safety.Workspace.
var _ checkpoint.Files = (*safety.Workspace)(nil)

func TestWithSafetyWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	outside := t.TempDir()
	for name, content := range map[string]string{"a.txt": "a\n", "src/b.go": "package b\n", ".git/HEAD": "ref\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	if err := os.Symlink("src/b.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	store, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m, err := checkpoint.New(ws, store)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := m.Begin(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	call := checkpoint.Call{ID: "c", Tool: "write_file"}
	// An absolute path inside the workspace and a symlink both resolve to
	// the one record of the real file.
	if err := cp.WriteFile(ctx, call, filepath.Join(dir, "a.txt"), []byte("A\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := cp.WriteFile(ctx, call, "link.go", []byte("package b // edited\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := cp.WriteFile(ctx, call, "new/dir/c.txt", []byte("c\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := cp.Rename(ctx, call, "a.txt", "renamed.txt"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../" + filepath.Base(outside) + "/secret", filepath.Join(outside, "secret")} {
		err := cp.WriteFile(ctx, call, p, []byte("x"), 0)
		if !errors.Is(err, checkpoint.ErrInvalidPath) || !errors.Is(err, safety.ErrOutsideWorkspace) {
			t.Errorf("WriteFile(%q) = %v, want ErrInvalidPath wrapping safety.ErrOutsideWorkspace", p, err)
		}
	}
	// Removing or renaming a symlink would act on the link itself, which a
	// checkpoint cannot snapshot: refused, and the target is untouched.
	if err := cp.Remove(ctx, call, "link.go"); !errors.Is(err, checkpoint.ErrNotRegular) {
		t.Errorf("Remove(symlink) = %v, want ErrNotRegular", err)
	}
	if err := cp.Rename(ctx, call, "link.go", "link2.go"); !errors.Is(err, checkpoint.ErrNotRegular) {
		t.Errorf("Rename(symlink) = %v, want ErrNotRegular", err)
	}
	if err := cp.WriteFile(ctx, call, ".git/HEAD", []byte("x"), 0); !errors.Is(err, checkpoint.ErrProtectedPath) {
		t.Errorf("write to .git = %v", err)
	}
	d, err := cp.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range d.Files {
		paths = append(paths, string(f.Kind)+" "+f.Path)
	}
	want := []string{"modified src/b.go", "added new/dir/c.txt", "renamed renamed.txt"}
	if len(paths) != len(want) {
		t.Fatalf("diff files = %v, want %v", paths, want)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Errorf("diff file %d = %s, want %s", i, paths[i], want[i])
		}
	}
	if _, err := cp.Undo(ctx, checkpoint.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"a.txt": "a\n", "src/b.go": "package b\n", ".git/HEAD": "ref\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(got) != content {
			t.Errorf("%s = %q, %v; want %q", name, got, err, content)
		}
	}
	for _, gone := range []string{"renamed.txt", "new"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived undo", gone)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.go")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink itself was replaced: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "secret")); string(got) != "s" {
		t.Errorf("file outside the workspace changed: %q", got)
	}
}

func TestSymlinkIntoGitRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
	os.Symlink(".git", filepath.Join(dir, "innocent"))
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m, _ := checkpoint.New(ws, checkpoint.NewMemoryStore())
	cp, _ := m.Begin(ctx, "s", "")
	if err := cp.WriteFile(ctx, checkpoint.Call{}, "innocent/config", []byte("pwned"), 0); !errors.Is(err, checkpoint.ErrProtectedPath) {
		t.Errorf("write through a symlink into .git = %v, want ErrProtectedPath", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(got) != "[core]\n" {
		t.Errorf(".git/config changed: %q", got)
	}
}

func TestCheckpointBoundToItsWorkspace(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemoryStore()
	open := func(dir string) *checkpoint.Manager {
		ws, err := safety.OpenWorkspace(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		m, err := checkpoint.New(ws, store)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	cp, _ := open(dirA).Begin(ctx, "s", "")
	cp.WriteFile(ctx, checkpoint.Call{}, "x.txt", []byte("x"), 0)
	if _, err := open(dirB).Open(ctx, cp.ID()); !errors.Is(err, checkpoint.ErrWrongWorkspace) {
		t.Errorf("Open from another workspace = %v, want ErrWrongWorkspace", err)
	}
	if _, err := open(dirA).Open(ctx, cp.ID()); err != nil {
		t.Errorf("Open from its own workspace = %v", err)
	}
}
