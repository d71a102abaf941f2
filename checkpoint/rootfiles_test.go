package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// rootFiles is the smallest Files a test needs: confined by os.Root,
// writes atomic (temp file in the same directory, fsync, rename), missing
// parents created. The real implementation is *safety.Workspace.
type rootFiles struct {
	root *os.Root
}

func newRootFiles(t testing.TB, dir string) *rootFiles {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &rootFiles{root: r}
}

// tmpPrefix marks temp files, so crash tests can tell them from real ones.
const tmpPrefix = ".tether-tmp-"

func (f *rootFiles) ReadFile(name string) ([]byte, error)      { return f.root.ReadFile(name) }
func (f *rootFiles) Remove(name string) error                  { return f.root.Remove(name) }
func (f *rootFiles) Rename(o, n string) error                  { return f.root.Rename(o, n) }
func (f *rootFiles) Lstat(name string) (fs.FileInfo, error)    { return f.root.Lstat(name) }
func (f *rootFiles) MkdirAll(name string, p fs.FileMode) error { return f.root.MkdirAll(name, p) }
func (f *rootFiles) Chmod(name string, m fs.FileMode) error    { return f.root.Chmod(name, m) }

func (f *rootFiles) WriteFile(name string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(name)
	if err := f.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, tmpPrefix+hex.EncodeToString(rnd[:]))
	t, err := f.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			t.Close()
			f.root.Remove(tmp)
		}
	}()
	if _, err = t.Write(data); err != nil {
		return err
	}
	if err = t.Sync(); err != nil {
		return err
	}
	if err = t.Close(); err != nil {
		return err
	}
	return f.root.Rename(tmp, name)
}
