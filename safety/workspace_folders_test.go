package safety

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

// multiRoot builds two sibling roots, app (primary) and lib, plus a file
// outside both, with symlinks from each root into the other, and opens app
// with lib as a folder.
func multiRoot(t *testing.T) (w *Workspace, app, lib string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	app, lib = filepath.Join(base, "app"), filepath.Join(base, "lib")
	for name, content := range map[string]string{
		"app/main.go": "main", "app/.env": "APP_SECRET", "lib/util.go": "util", "lib/.env": "LIB_SECRET", "outside.txt": "o",
	} {
		full := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"lib/toapp": filepath.Join(app, ".env"), "lib/up": "..", "app/tolib": lib,
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	w, err = OpenWorkspace(app, WithHome(""), WithFolder("lib", lib))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, app, lib
}

// TestFolders: each path resolves inside exactly one root; escapes from a
// folder into another root or outside are refused as from the primary.
func TestFolders(t *testing.T) {
	w, app, lib := multiRoot(t)
	tests := []struct {
		path string
		op   Op
		want Decision
		rel  string
		err  error
	}{
		{"main.go", OpRead, Allow, "main.go", nil},
		{"lib/util.go", OpRead, Allow, "lib/util.go", nil},
		{"./lib/util.go", OpRead, Allow, "lib/util.go", nil},
		{"lib/new/file.go", OpWrite, Allow, "lib/new/file.go", nil},
		{"lib", OpRead, Allow, "lib", nil},
		{filepath.Join(lib, "util.go"), OpRead, Allow, "lib/util.go", nil},
		{filepath.Join(app, "main.go"), OpRead, Allow, "main.go", nil},
		{"lib/.env", OpRead, Confirm, "lib/.env", nil}, // sensitivity applies in every root
		{"lib", OpWrite, Deny, "", ErrRootOperation},
		{"lib/../../app/.env", OpRead, Deny, "", ErrOutsideWorkspace},
		{"lib/../main.go", OpRead, Deny, "", ErrOutsideWorkspace},
		{lib + "/../app/.env", OpRead, Confirm, ".env", nil}, // really in app: judged there, secret
		{lib + "/toapp", OpRead, Deny, "", ErrOutsideWorkspace},
		{"lib/toapp", OpRead, Deny, "", ErrOutsideWorkspace}, // a symlink in lib into app
		{"lib/up/outside.txt", OpRead, Deny, "", ErrOutsideWorkspace},
		{"tolib/util.go", OpRead, Deny, "", ErrOutsideWorkspace}, // a symlink in app into lib
		{"../lib/util.go", OpRead, Deny, "", ErrOutsideWorkspace},
		{filepath.Join(filepath.Dir(app), "outside.txt"), OpRead, Deny, "", ErrOutsideWorkspace},
	}
	for _, tt := range tests {
		pc := w.Check(tt.path, tt.op)
		if pc.Decision != tt.want || (tt.rel != "" && pc.Rel != tt.rel) {
			t.Errorf("Check(%q, %v) = %v %q (%s); want %v %q", tt.path, tt.op, pc.Decision, pc.Rel, pc.Reason, tt.want, tt.rel)
		}
		if tt.err != nil && !errors.Is(pc.Err, tt.err) {
			t.Errorf("Check(%q, %v).Err = %v; want %v", tt.path, tt.op, pc.Err, tt.err)
		}
		var pe *PathError
		if pc.Err != nil && (!errors.As(pc.Err, &pe) || pe.Path != tt.path) {
			t.Errorf("Check(%q).Err names %v; want the path as written", tt.path, pc.Err)
		}
		if rel, err := w.Rel(tt.path); tt.want != Deny && tt.op == OpRead && (err != nil || rel != tt.rel) {
			t.Errorf("Rel(%q) = %q, %v; want %q", tt.path, rel, err, tt.rel)
		}
	}
}

// TestFoldersIO: the I/O methods reach the folder named, writes land there
// atomically and whole, and a move between roots is refused with nothing
// changed.
func TestFoldersIO(t *testing.T) {
	w, app, lib := multiRoot(t)
	if b, err := w.ReadFile("lib/util.go"); err != nil || string(b) != "util" {
		t.Fatalf("ReadFile(lib/util.go) = %q, %v", b, err)
	}
	if err := w.WriteFile("lib/pkg/new.go", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(lib, "pkg", "new.go")); err != nil || string(b) != "new" {
		t.Fatalf("the write landed elsewhere: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(app, "lib")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the write created app/lib: %v", err)
	}
	if err := w.Rename("lib/pkg/new.go", "lib/pkg/moved.go"); err != nil {
		t.Fatal(err)
	}
	if fi, err := w.Stat("lib/pkg/moved.go"); err != nil || fi.Size() != 3 {
		t.Fatalf("Stat after rename: %v, %v", fi, err)
	}
	if err := w.Rename("lib/pkg/moved.go", "main2.go"); !errors.Is(err, ErrInvalidPath) {
		t.Fatalf("Rename across roots = %v; want ErrInvalidPath", err)
	}
	if _, err := os.Stat(filepath.Join(lib, "pkg", "moved.go")); err != nil {
		t.Fatalf("a refused rename moved the file: %v", err)
	}
	if err := w.WriteFile("lib/../../app/x.go", []byte("x"), 0o644); !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("WriteFile escaping lib = %v; want ErrOutsideWorkspace", err)
	}
	if _, err := os.Stat(filepath.Join(app, "x.go")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused write left a file: %v", err)
	}
	ents, err := w.ReadDir("lib/pkg")
	if err != nil || len(ents) != 1 || ents[0].Name() != "moved.go" {
		t.Fatalf("ReadDir(lib/pkg) = %v, %v", ents, err)
	}
	if err := w.MkdirAll("lib/a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.Remove("lib/a/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Lstat("lib/a/b"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Lstat after Remove = %v", err)
	}
	f, err := w.Open("lib/util.go")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()

	// A real entry of the primary root named like a folder wins.
	if err := os.MkdirAll(filepath.Join(app, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if pc := w.Check("lib/util.go", OpRead); pc.Resolved != filepath.Join(app, "lib", "util.go") {
		t.Fatalf("with app/lib present, lib/util.go resolves to %s", pc.Resolved)
	}
}

// TestWithFolderRefuses: names and roots that would make a path ambiguous.
func TestWithFolderRefuses(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	app, lib := filepath.Join(base, "app"), filepath.Join(base, "lib")
	for _, d := range []string{app + "/sub", lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		opts []WorkspaceOption
	}{
		{"empty name", []WorkspaceOption{WithFolder("", lib)}},
		{"name with a slash", []WorkspaceOption{WithFolder("a/b", lib)}},
		{"dot-dot", []WorkspaceOption{WithFolder("..", lib)}},
		{"the root's own name", []WorkspaceOption{WithFolder("app", lib)}},
		{"duplicate", []WorkspaceOption{WithFolder("x", lib), WithFolder("x", lib)}},
		{"nested in the root", []WorkspaceOption{WithFolder("sub", app+"/sub")}},
		{"containing the root", []WorkspaceOption{WithFolder("all", base)}},
		{"same root twice", []WorkspaceOption{WithFolder("x", lib), WithFolder("y", lib)}},
		{"missing", []WorkspaceOption{WithFolder("gone", base+"/gone")}},
	} {
		if w, err := OpenWorkspace(app, tc.opts...); err == nil {
			w.Close()
			t.Errorf("%s: OpenWorkspace accepted it", tc.name)
		}
	}
}

// TestFoldersFS: FS shows the folders as directories of their names, passes
// the standard library's file system checks, and stays confined.
func TestFoldersFS(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"app/main.go": "m", "lib/pkg/util.go": "u", "docs/a.md": "a"} {
		full := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := OpenWorkspace(filepath.Join(base, "app"), WithFolder("lib", filepath.Join(base, "lib")), WithFolder("docs", filepath.Join(base, "docs")))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := fstest.TestFS(w.FS(), "main.go", "lib/pkg/util.go", "docs/a.md"); err != nil {
		t.Fatal(err)
	}
	var walked []string
	if err := fs.WalkDir(w.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			walked = append(walked, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"docs/a.md", "lib/pkg/util.go", "main.go"}; !slices.Equal(walked, want) {
		t.Fatalf("WalkDir = %v; want %v", walked, want)
	}
	for _, bad := range []string{"lib/../main.go", "../lib/pkg/util.go", "/etc/passwd"} {
		if _, err := w.FS().Open(bad); err == nil {
			t.Errorf("FS().Open(%q) succeeded", bad)
		}
	}
}
