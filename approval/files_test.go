package approval

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/safety"
)

// dirFiles is a minimal Files over a real directory, standing in for
// *safety.Workspace: it resolves symlinks, confines to root, asks to confirm
// writes to .env files and writes atomically.
type dirFiles struct {
	root string
	mu   sync.Mutex
	// writes counts WriteFile calls, to prove previews write nothing.
	writes int
}

func newDirFiles(t *testing.T) *dirFiles {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &dirFiles{root: root}
}

func (d *dirFiles) abs(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.root, p)
	}
	return filepath.Clean(p)
}

// resolve follows symlinks in the longest existing prefix of p.
func resolve(p string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	parent, err := resolve(filepath.Dir(p))
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.Base(p)), nil
}

func (d *dirFiles) Check(p string, op safety.Op) safety.PathCheck {
	if p == "" {
		return safety.PathCheck{Decision: safety.Deny, Reason: "empty path"}
	}
	r, err := resolve(d.abs(p))
	if err != nil {
		return safety.PathCheck{Decision: safety.Deny, Reason: err.Error()}
	}
	rel, err := filepath.Rel(d.root, r)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return safety.PathCheck{Decision: safety.Deny, Resolved: r, Reason: "outside the workspace"}
	}
	c := safety.PathCheck{Decision: safety.Allow, Resolved: r, Rel: filepath.ToSlash(rel), Reason: "inside the workspace"}
	if filepath.Base(r) == ".env" && op == safety.OpWrite {
		c.Decision, c.Sensitive, c.Reason = safety.Confirm, true, "matches **/.env"
	}
	return c
}

func (d *dirFiles) ReadFile(p string) ([]byte, error)   { return os.ReadFile(d.abs(p)) }
func (d *dirFiles) Lstat(p string) (fs.FileInfo, error) { return os.Lstat(d.abs(p)) }

func (d *dirFiles) WriteFile(p string, data []byte, perm fs.FileMode) error {
	if d.Check(p, safety.OpWrite).Decision == safety.Deny {
		return errors.New("outside the workspace")
	}
	d.mu.Lock()
	d.writes++
	d.mu.Unlock()
	p = d.abs(p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

func (d *dirFiles) writeCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.writes
}

// put writes a file directly, as the user or another process would.
func (d *dirFiles) put(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(d.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (d *dirFiles) get(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(d.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeClock is an injectable clock that only moves when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
