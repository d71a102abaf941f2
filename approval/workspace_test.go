package approval

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// The same two-phase flow against the real *safety.Workspace.
func openWorkspace(t *testing.T) (*safety.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	ws, err := safety.OpenWorkspace(root, safety.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, ws.Root()
}

func writeAt(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(content), 0o644))
}

func readAt(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	must(t, err)
	return string(b)
}

func TestWorkspacePreviewApply(t *testing.T) {
	ws, root := openWorkspace(t)
	s := NewStager(ws, StagerConfig{Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	writeAt(t, root, "pkg/a.go", goFile)

	p, err := s.PreviewEdit(ctx, "pkg/a.go", Edit{OldText: `"hello"`, NewText: `"hi"`})
	must(t, err)
	if p.Resolved != filepath.Join(root, "pkg", "a.go") || p.Rel != "pkg/a.go" || p.Stats != (DiffStats{Added: 1, Removed: 1}) {
		t.Errorf("preview = %+v", p)
	}
	if readAt(t, root, "pkg/a.go") != goFile {
		t.Fatal("preview wrote")
	}
	_, err = s.Apply(ctx, p.Token)
	must(t, err)
	if got := readAt(t, root, "pkg/a.go"); got != strings.Replace(goFile, `"hello"`, `"hi"`, 1) {
		t.Errorf("file = %q", got)
	}

	// A new file in a new directory.
	p, err = s.PreviewWrite(ctx, "new/dir/b.txt", []byte("b\n"))
	must(t, err)
	_, err = s.Apply(ctx, p.Token)
	must(t, err)
	if readAt(t, root, "new/dir/b.txt") != "b\n" {
		t.Error("create")
	}
}

func TestWorkspaceApplyRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("content changed", func(t *testing.T) {
		ws, root := openWorkspace(t)
		s := NewStager(ws, StagerConfig{Logger: slog.New(slog.DiscardHandler)})
		writeAt(t, root, "a.txt", "one\n")
		p, err := s.PreviewWrite(ctx, "a.txt", []byte("agent\n"))
		must(t, err)
		writeAt(t, root, "a.txt", "user\n")
		if _, err := s.Apply(ctx, p.Token); !errors.Is(err, ErrFileChanged) {
			t.Fatalf("err = %v", err)
		}
		if readAt(t, root, "a.txt") != "user\n" {
			t.Error("user's work overwritten")
		}
	})
	t.Run("swapped inode", func(t *testing.T) {
		ws, root := openWorkspace(t)
		s := NewStager(ws, StagerConfig{Logger: slog.New(slog.DiscardHandler)})
		writeAt(t, root, "a.txt", "one\n")
		p, err := s.PreviewWrite(ctx, "a.txt", []byte("agent\n"))
		must(t, err)
		writeAt(t, root, "b.txt", "one\n")
		must(t, os.Rename(filepath.Join(root, "b.txt"), filepath.Join(root, "a.txt")))
		var ce *ChangedError
		if _, err := s.Apply(ctx, p.Token); !errors.As(err, &ce) || ce.What != "replaced by a different file" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("symlink swapped to escape", func(t *testing.T) {
		ws, root := openWorkspace(t)
		s := NewStager(ws, StagerConfig{Logger: slog.New(slog.DiscardHandler)})
		outside := t.TempDir()
		writeAt(t, outside, "secret.txt", "keep\n")
		writeAt(t, root, "real.txt", "one\n")
		must(t, os.Symlink("real.txt", filepath.Join(root, "link.txt")))
		p, err := s.PreviewWrite(ctx, "link.txt", []byte("agent\n"))
		must(t, err)
		if p.Resolved != filepath.Join(root, "real.txt") {
			t.Fatalf("resolved = %s", p.Resolved)
		}
		must(t, os.Remove(filepath.Join(root, "link.txt")))
		must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")))
		_, err = s.Apply(ctx, p.Token)
		if !errors.Is(err, ErrPathDenied) && !errors.Is(err, ErrFileChanged) {
			t.Fatalf("err = %v", err)
		}
		if readAt(t, outside, "secret.txt") != "keep\n" || readAt(t, root, "real.txt") != "one\n" {
			t.Error("a file was written")
		}
	})
	t.Run("outside denied at preview", func(t *testing.T) {
		ws, _ := openWorkspace(t)
		s := NewStager(ws, StagerConfig{Logger: slog.New(slog.DiscardHandler)})
		for _, p := range []string{"../x.txt", "/etc/passwd", "a/../../x"} {
			if _, err := s.PreviewWrite(ctx, p, []byte("x")); !errors.Is(err, ErrPathDenied) {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
}

func TestWorkspaceSensitiveNeedsConfirm(t *testing.T) {
	ws, root := openWorkspace(t)
	s := NewStager(ws, StagerConfig{Logger: slog.New(slog.DiscardHandler)})
	writeAt(t, root, ".env", "A=1\n")
	p, err := s.PreviewWrite(context.Background(), ".env", []byte("A=2\n"))
	must(t, err)
	if p.Decision != safety.Confirm || !p.Sensitive {
		t.Fatalf("decision = %v, sensitive = %v (%s)", p.Decision, p.Sensitive, p.Reason)
	}
	gate := &Gate{Policy: Headless(s), Logger: slog.New(slog.DiscardHandler)}
	a, err := gate.Authorize(context.Background(), p.Request("apply_file_change"))
	must(t, err)
	_, err = s.ApplyApproved(context.Background(), a)
	must(t, err)
	if readAt(t, root, ".env") != "A=2\n" {
		t.Error("not applied")
	}
}
