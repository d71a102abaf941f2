package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every way the file can stop being the previewed one makes Apply refuse and
// leaves the file as the other party left it.
func TestApplyRefusesChangedFile(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, f *dirFiles) string // returns the path to preview
		mutate func(t *testing.T, f *dirFiles)
		what   string
	}{
		{"content edited", func(t *testing.T, f *dirFiles) string { f.put(t, "a.txt", "one\n"); return "a.txt" },
			func(t *testing.T, f *dirFiles) { f.put(t, "a.txt", "one\nuser line\n") }, "content"},
		{"swapped for an identical copy", func(t *testing.T, f *dirFiles) string { f.put(t, "a.txt", "one\n"); return "a.txt" },
			func(t *testing.T, f *dirFiles) {
				f.put(t, "copy.txt", "one\n")
				must(t, os.Rename(filepath.Join(f.root, "copy.txt"), filepath.Join(f.root, "a.txt")))
			}, "replaced by a different file"},
		{"deleted", func(t *testing.T, f *dirFiles) string { f.put(t, "a.txt", "one\n"); return "a.txt" },
			func(t *testing.T, f *dirFiles) { must(t, os.Remove(filepath.Join(f.root, "a.txt"))) }, "deleted"},
		{"created meanwhile", func(t *testing.T, f *dirFiles) string { return "new.txt" },
			func(t *testing.T, f *dirFiles) { f.put(t, "new.txt", "theirs\n") }, "created by someone else"},
		{"mode changed", func(t *testing.T, f *dirFiles) string { f.put(t, "a.txt", "one\n"); return "a.txt" },
			func(t *testing.T, f *dirFiles) { must(t, os.Chmod(filepath.Join(f.root, "a.txt"), 0o600)) }, "mode"},
		{"symlink retargeted", func(t *testing.T, f *dirFiles) string {
			f.put(t, "real1.txt", "one\n")
			f.put(t, "real2.txt", "one\n")
			must(t, os.Symlink("real1.txt", filepath.Join(f.root, "link.txt")))
			return "link.txt"
		}, func(t *testing.T, f *dirFiles) {
			must(t, os.Remove(filepath.Join(f.root, "link.txt")))
			must(t, os.Symlink("real2.txt", filepath.Join(f.root, "link.txt")))
		}, "now resolves to"},
		{"replaced by a directory", func(t *testing.T, f *dirFiles) string { f.put(t, "a.txt", "one\n"); return "a.txt" },
			func(t *testing.T, f *dirFiles) {
				must(t, os.Remove(filepath.Join(f.root, "a.txt")))
				must(t, os.Mkdir(filepath.Join(f.root, "a.txt"), 0o755))
			}, "directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, files, _ := newTestStager(t)
			path := tt.setup(t, files)
			p, err := s.PreviewWrite(context.Background(), path, []byte("agent\n"))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ValidateToken(p.Token, p.Resolved); err != nil {
				t.Fatalf("fresh token invalid: %v", err)
			}
			tt.mutate(t, files)
			if err := s.ValidateToken(p.Token, p.Resolved); !errors.Is(err, ErrFileChanged) {
				t.Errorf("ValidateToken after change = %v", err)
			}
			_, err = s.Apply(context.Background(), p.Token)
			var ce *ChangedError
			if !errors.Is(err, ErrFileChanged) || !errors.As(err, &ce) || !strings.Contains(ce.What, tt.what) {
				t.Fatalf("Apply = %v, want ErrFileChanged mentioning %q", err, tt.what)
			}
			if files.writeCount() != 0 {
				t.Error("refused Apply wrote")
			}
			if !strings.Contains(err.Error(), "preview the change again") {
				t.Errorf("error does not say what to do: %v", err)
			}
			if _, err := s.Apply(context.Background(), p.Token); !errors.Is(err, ErrTokenUsed) {
				t.Errorf("token survived a refused Apply: %v", err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
