package safety

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestChmodExactAndConfined: Chmod sets exact bits (no umask) inside the
// workspace and refuses a path that leaves it, also through a symlink.
func TestChmodExactAndConfined(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "run.sh"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "victim"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	w, err := OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct {
		path string
		mode fs.FileMode
		ok   bool
	}{
		{"run.sh", 0o755, true},
		{"run.sh", 0o666, true}, // past a 022 umask
		{"../" + filepath.Base(outside) + "/victim", 0o777, false},
		{"link", 0o777, false},
		{"missing.txt", 0o755, false},
	} {
		err := w.Chmod(tc.path, tc.mode)
		if (err == nil) != tc.ok {
			t.Fatalf("Chmod(%q): err %v, want ok=%v", tc.path, err, tc.ok)
		}
		if tc.ok {
			fi, err := os.Stat(filepath.Join(root, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tc.mode {
				t.Errorf("Chmod(%q, %v): mode %v", tc.path, tc.mode, fi.Mode().Perm())
			}
		}
	}
	if fi, _ := os.Stat(filepath.Join(outside, "victim")); fi.Mode().Perm() != 0o600 {
		t.Errorf("a file outside the workspace changed mode: %v", fi.Mode().Perm())
	}
}

// TestReadlinkDoesNotFollow: Readlink reports a link's own target, even
// one outside the workspace, and refuses a link whose directory escapes.
func TestReadlinkDoesNotFollow(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "victim")
	if err := os.Symlink(target, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	w, err := OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got, err := w.Readlink("link"); err != nil || got != target {
		t.Errorf("Readlink(link) = %q, %v; want %q", got, err, target)
	}
	if _, err := w.Readlink("out/anything"); err == nil {
		t.Error("Readlink through a directory link leaving the workspace succeeded")
	}
	if _, err := w.Readlink("missing"); err == nil {
		t.Error("Readlink of a missing path succeeded")
	}
}
