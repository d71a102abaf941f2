package safety

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// newTestWorkspace returns a workspace in a fresh directory and, beside it,
// a directory outside the workspace.
func newTestWorkspace(t *testing.T, opts ...WorkspaceOption) (w *Workspace, root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, err = OpenWorkspace(root, append([]WorkspaceOption{WithHome(base)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, root, outside
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenWorkspaceErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	writeFile(t, file, "x")
	for _, tc := range []struct {
		root string
		want error
	}{
		{filepath.Join(dir, "missing"), fs.ErrNotExist},
		{file, ErrNotDirectory},
		{"", ErrInvalidPath},
		{dir + "\x00", ErrInvalidPath},
	} {
		_, err := OpenWorkspace(tc.root)
		if !errors.Is(err, tc.want) {
			t.Errorf("OpenWorkspace(%q) = %v, want %v", tc.root, err, tc.want)
		}
		var pe *PathError
		if !errors.As(err, &pe) {
			t.Errorf("OpenWorkspace(%q) error %T is not a *PathError", tc.root, err)
		}
	}
	if _, err := OpenWorkspace(dir, WithHome("relative/home")); err == nil {
		t.Error("WithHome(relative) accepted")
	}
	if _, err := OpenWorkspace(dir, WithSensitivityRules(SensitivityRule{Pattern: "[unclosed"})); err == nil {
		t.Error("bad sensitivity pattern accepted")
	}
}

func TestWriteFileAtomicAndConfined(t *testing.T) {
	w, root, outside := newTestWorkspace(t)

	if err := w.WriteFile("a/b/c.txt", []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "a/b/c.txt")); got != "one" {
		t.Fatalf("content = %q", got)
	}
	fi, _ := os.Stat(filepath.Join(root, "a/b/c.txt"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode = %v, want 0600", fi.Mode().Perm())
	}

	// Overwrite keeps the existing mode, not perm.
	if err := w.WriteFile("a/b/c.txt", []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(filepath.Join(root, "a/b/c.txt"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("overwritten file mode = %v, want the old 0600", fi.Mode().Perm())
	}
	if got := readFile(t, filepath.Join(root, "a/b/c.txt")); got != "two" {
		t.Fatalf("content = %q", got)
	}

	// No temporary files are left behind.
	ents, _ := os.ReadDir(filepath.Join(root, "a/b"))
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries after two writes, want 1: %v", len(ents), ents)
	}

	// Through a symlink inside: the target changes, the link stays.
	if err := os.Symlink("a/b/c.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("link", []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "link")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("writing through a symlink replaced the link")
	}
	if got := readFile(t, filepath.Join(root, "a/b/c.txt")); got != "three" {
		t.Errorf("target content = %q", got)
	}

	// Refusals write nothing.
	for _, p := range []string{"../outside/x", filepath.Join(outside, "x"), "~/outside/x", ".", "bad\x00name"} {
		err := w.WriteFile(p, []byte("no"), 0o644)
		var pe *PathError
		if err == nil || !errors.As(err, &pe) {
			t.Errorf("WriteFile(%q) = %v, want a *PathError", p, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("outside directory was written: %v", ents)
	}

	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("escape/x", []byte("no"), 0o644); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("write through an outward symlink = %v, want ErrOutsideWorkspace", err)
	}
	if err := w.WriteFile("newdir/", []byte("no"), 0o644); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("WriteFile(newdir/) = %v, want ErrInvalidPath", err)
	}
	if err := w.WriteFile("a/b", []byte("no"), 0o644); err == nil {
		t.Error("writing over a directory succeeded")
	}
}

func TestReadOperations(t *testing.T) {
	w, root, outside := newTestWorkspace(t)
	writeFile(t, filepath.Join(root, "dir/b.txt"), "bee")
	writeFile(t, filepath.Join(root, "dir/a.txt"), "ay")
	writeFile(t, filepath.Join(outside, "secret"), "s3cret")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "dir/out")); err != nil {
		t.Fatal(err)
	}

	if b, err := w.ReadFile("dir/a.txt"); err != nil || string(b) != "ay" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	f, err := w.Open(filepath.Join(root, "dir/b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := w.ReadFile("dir/out"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("ReadFile through outward symlink = %v", err)
	}
	if _, err := w.Stat("dir/out"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("Stat through outward symlink = %v", err)
	}
	// Lstat looks at the link itself, which is inside.
	fi, err := w.Lstat("dir/out")
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(link) = %v, %v", fi, err)
	}
	ents, err := w.ReadDir("dir")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a.txt,b.txt,out" {
		t.Errorf("ReadDir = %v", names)
	}
	if _, err := w.ReadFile("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want fs.ErrNotExist", err)
	}
	if rel, err := w.Rel(filepath.Join(root, "dir", "..", "dir", "a.txt")); err != nil || rel != "dir/a.txt" {
		t.Errorf("Rel = %q, %v", rel, err)
	}
	if _, err := w.Rel("../outside"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("Rel(outside) = %v", err)
	}
	// The FS view is confined too.
	if _, err := fs.ReadFile(w.FS(), "dir/out"); err == nil {
		t.Error("FS() followed a symlink out of the workspace")
	}
	if err := os.Remove(filepath.Join(root, "dir/out")); err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(w.FS(), "dir/a.txt", "dir/b.txt"); err != nil {
		t.Error(err)
	}
}

func TestMutations(t *testing.T) {
	w, root, outside := newTestWorkspace(t)
	writeFile(t, filepath.Join(root, "a.txt"), "a")
	writeFile(t, filepath.Join(outside, "keep"), "keep")
	if err := os.Symlink(filepath.Join(outside, "keep"), filepath.Join(root, "out-link")); err != nil {
		t.Fatal(err)
	}
	if err := w.MkdirAll("x/y/z", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.MkdirAll(".", 0o755); err != nil {
		t.Errorf("MkdirAll(.) = %v", err)
	}
	if err := w.Rename("a.txt", "x/y/z/a.txt"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "x/y/z/a.txt")); got != "a" {
		t.Errorf("renamed content = %q", got)
	}
	if err := w.Rename("x/y/z/a.txt", "../outside/a.txt"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("Rename to outside = %v", err)
	}
	// Removing a link removes the link, never its target outside.
	if err := w.Remove("out-link"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(outside, "keep")); got != "keep" {
		t.Error("target outside was affected")
	}
	if err := w.Remove("."); !errors.Is(err, ErrRootOperation) {
		t.Errorf("Remove(.) = %v", err)
	}
	if err := w.Remove("../outside/keep"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("Remove(outside) = %v", err)
	}
	if err := w.Remove("x"); err == nil {
		t.Error("Remove of a non-empty directory succeeded")
	}
}

func TestHardLinkWriteDoesNotChangeOtherName(t *testing.T) {
	w, root, outside := newTestWorkspace(t)
	writeFile(t, filepath.Join(outside, "shared"), "original")
	if err := os.Link(filepath.Join(outside, "shared"), filepath.Join(root, "twin")); err != nil {
		t.Skipf("hard links unsupported here: %v", err)
	}
	pc := w.Check("twin", OpWrite)
	if pc.Decision != Confirm || !strings.Contains(pc.Reason, "hard links") {
		t.Fatalf("Check(twin) = %+v, want Confirm naming hard links", pc)
	}
	// A caller that got approval writes: the atomic rename gives the
	// workspace name a new inode, so the outside name keeps its content.
	if err := w.WriteFile("twin", []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(outside, "shared")); got != "original" {
		t.Errorf("outside hard link now reads %q", got)
	}
}

func TestCheckReasons(t *testing.T) {
	w, root, _ := newTestWorkspace(t)
	writeFile(t, filepath.Join(root, ".env"), "K=V")
	for _, tc := range []struct {
		path string
		op   Op
		want []string
	}{
		{".env", OpRead, []string{"reading .env needs approval", "secrets", ".env*"}},
		{"../x", OpRead, []string{"outside the workspace"}},
		{"a\u202eb", OpRead, []string{"bidi control", "U+202E"}},
		{"", OpChdir, []string{`use "." for the workspace root`}},
		{"~bob/x", OpRead, []string{"~user"}},
	} {
		pc := w.Check(tc.path, tc.op)
		for _, s := range tc.want {
			if !strings.Contains(pc.Reason, s) {
				t.Errorf("Check(%q).Reason = %q, want it to mention %q", tc.path, pc.Reason, s)
			}
		}
		if pc.Decision == Deny && pc.Err == nil {
			t.Errorf("Check(%q) denied without Err", tc.path)
		}
	}
}
