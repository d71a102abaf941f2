package safety

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Races: a path swapped between the check and the use, and concurrent
// writers on one file.

// A directory swapped for a symlink between the check and the write: the
// re-validation at write time must refuse, and nothing may land outside.
func TestWriteFileSymlinkSwappedAfterCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(root, outside string) string
		want   error
	}{
		{"to outside", func(_, outside string) string { return outside }, ErrOutsideWorkspace},
		{"to outside, relative", func(_, _ string) string { return "../outside" }, ErrOutsideWorkspace},
		{"to another directory inside", func(root, _ string) string { return filepath.Join(root, ".git") }, ErrPathChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, root, outside := newTestWorkspace(t)
			writeFile(t, filepath.Join(root, "sub/file.txt"), "old")
			writeFile(t, filepath.Join(root, ".git/file.txt"), "git")
			if pc := w.Check("sub/file.txt", OpWrite); pc.Decision != Allow {
				t.Fatalf("Check = %+v", pc)
			}
			w.beforeUse = func(string, string) {
				if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "sub.orig")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(tc.target(root, outside), filepath.Join(root, "sub")); err != nil {
					t.Fatal(err)
				}
			}
			err := w.WriteFile("sub/file.txt", []byte("new"), 0o644)
			if !errors.Is(err, tc.want) {
				t.Fatalf("WriteFile after swap = %v, want %v", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(outside, "file.txt")); err == nil {
				t.Error("file landed outside the workspace")
			}
			if got := readFile(t, filepath.Join(root, ".git/file.txt")); got != "git" {
				t.Errorf(".git/file.txt = %q: the write was redirected", got)
			}
		})
	}
}

// The same swap under ReadFile, Open and Remove: the operation must notice
// that the name now leads elsewhere and refuse.
func TestOtherOperationsNoticeSwaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(w *Workspace) error
	}{
		{"ReadFile", func(w *Workspace) error { _, err := w.ReadFile("sub/file.txt"); return err }},
		{"Open", func(w *Workspace) error {
			f, err := w.Open("sub/file.txt")
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"Remove", func(w *Workspace) error { return w.Remove("sub/file.txt") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, root, _ := newTestWorkspace(t)
			writeFile(t, filepath.Join(root, "sub/file.txt"), "plain")
			writeFile(t, filepath.Join(root, ".git/file.txt"), "git")
			w.beforeUse = func(string, string) {
				if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "sub.orig")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(".git", filepath.Join(root, "sub")); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.do(w); !errors.Is(err, ErrPathChanged) {
				t.Fatalf("%s after swap = %v, want ErrPathChanged", tc.name, err)
			}
			if got := readFile(t, filepath.Join(root, ".git/file.txt")); got != "git" {
				t.Errorf(".git/file.txt = %q", got)
			}
		})
	}
}

// Concurrent writers to one file: every reader sees one complete version,
// and no temporary file is left behind.
func TestWriteFileConcurrent(t *testing.T) {
	w, root, _ := newTestWorkspace(t)
	versions := map[string]bool{}
	for i := range 6 {
		versions[strings.Repeat(string(rune('a'+i)), 64<<10)] = true
	}
	done := make(chan error)
	for v := range versions {
		go func() {
			for range 10 {
				if err := w.WriteFile("shared/file.txt", []byte(v), 0o644); err != nil {
					done <- err
					return
				}
				if b, err := w.ReadFile("shared/file.txt"); err != nil || !versions[string(b)] {
					done <- fmt.Errorf("read a torn or failed version (%d bytes): %v", len(b), err)
					return
				}
			}
			done <- nil
		}()
	}
	for range versions {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(root, "shared"))
	if len(ents) != 1 {
		t.Errorf("shared/ holds %d entries, want only file.txt", len(ents))
	}
}
