package checkpoint

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/tetherdev/tether/internal/edit"
	"github.com/tetherdev/tether/safety"
)

// FuzzKey checks the path canonicaliser on the paths a model might send:
// whatever it accepts is relative, clean, inside the workspace and never
// in .git.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"a.txt", "./a/../b", "../x", "/etc/passwd", ".git/config", "a/.GIT/x", "a//b/", "..", ".",
		"a\\..\\..\\x", "~/x", "a\x00b", "dir/.gitignore", "x/.git", ".github/workflows/ci.yml"} {
		f.Add(s)
	}
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub", ".git"), 0o755)
	os.Symlink(filepath.Join("sub", ".git"), filepath.Join(dir, "gitlink")) // a link into .git
	os.Symlink("..", filepath.Join(dir, "sub", "up"))
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(filepath.Join(dir, "sub/x"))
	f.Add("gitlink/config")
	f.Add("sub/up/../../x")
	f.Fuzz(func(t *testing.T, p string) {
		for _, k := range []func(Files, string) (string, error){key, keyNoFollow} {
			for _, files := range []Files{&rootFiles{}, ws} {
				checkKey(t, p, k, files)
			}
		}
	})
}

func checkKey(t *testing.T, p string, k func(Files, string) (string, error), files Files) {
	t.Helper()
	{
		rel, err := k(files, p)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) && !errors.Is(err, ErrProtectedPath) {
				t.Fatalf("key(%q) error %v is neither ErrInvalidPath nor ErrProtectedPath", p, err)
			}
			return
		}
		if rel == "" || rel == "." || path.IsAbs(rel) || rel != path.Clean(rel) || strings.HasPrefix(rel, "../") || rel == ".." {
			t.Fatalf("key(%q) = %q: not a clean relative path inside the workspace", p, rel)
		}
		for _, part := range strings.Split(rel, "/") {
			if strings.EqualFold(part, ".git") {
				t.Fatalf("key(%q) = %q reaches into .git", p, rel)
			}
		}
	}
}

// FuzzHunks checks the hunk algebra on arbitrary text: rejecting every
// hunk gives the pre-image, accepting every hunk gives the agent's
// version, and the hunks are exactly the unified diff's.
func FuzzHunks(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add(numbered(30), replaceLine(replaceLine(numbered(30), 2, "X\n"), 25, ""))
	f.Add("", "new\nfile")
	f.Add("no newline", "no newline\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
	f.Fuzz(func(t *testing.T, pre, post string) {
		if pre == post || edit.IsBinary([]byte(pre)) || edit.IsBinary([]byte(post)) {
			return
		}
		ctx := context.Background()
		s := NewMemoryStore()
		s.Create(ctx, Info{ID: "c", State: StateOpen})
		preImg := Image{Exists: true, Hash: hashOf([]byte(pre)), Mode: 0o644}
		postImg := Image{Exists: true, Hash: hashOf([]byte(post)), Mode: 0o644}
		s.Commit(ctx, "c", Batch{Blobs: map[string][]byte{preImg.Hash: []byte(pre), postImg.Hash: []byte(post)}})
		c := &Checkpoint{m: &Manager{store: s}, info: Info{ID: "c"}, files: map[string]FileRecord{
			"f": {Checkpoint: "c", Path: "f", Pre: preImg, Post: postImg, Status: FilePending}}}
		p, err := c.plan(ctx, "f")
		if err != nil {
			t.Fatal(err)
		}
		none, err := p.apply(func(int) bool { return false })
		if err != nil || none != pre {
			t.Fatalf("rejecting every hunk gave %q, %v; want the pre-image %q", none, err, pre)
		}
		all, err := p.apply(func(int) bool { return true })
		if err != nil || all != post {
			t.Fatalf("accepting every hunk gave %q, %v; want %q", all, err, post)
		}
		u, err := udiff.ToUnifiedDiff("a", "b", pre, udiff.Lines(pre, post), ContextLines)
		if err != nil || len(u.Hunks) != len(p.hunks) {
			t.Fatalf("%d hunks, the unified diff has %d (%v)", len(p.hunks), len(u.Hunks), err)
		}
		var sum Stats
		for i, h := range p.hunks {
			sum.Added += h.Added
			sum.Removed += h.Removed
			// Each hunk alone is a valid, independent change.
			if _, err := p.apply(func(j int) bool { return j == i }); err != nil {
				t.Fatalf("hunk %d alone: %v", i, err)
			}
		}
		if want := edit.StatsOf(pre, udiff.Lines(pre, post)); sum != want {
			t.Fatalf("hunk stats sum to %+v, the file's are %+v", sum, want)
		}
	})
}
