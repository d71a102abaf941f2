package checkpoint

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// env is one test workspace with its Files, Store and Manager.
type env struct {
	t     *testing.T
	dir   string
	files *rootFiles
	store Store
	m     *Manager
}

func newEnv(t *testing.T, store Store, tree map[string]string) *env {
	t.Helper()
	dir := t.TempDir()
	for name, content := range tree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := newRootFiles(t, dir)
	m, err := New(files, store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &env{t: t, dir: dir, files: files, store: store, m: m}
}

// tree returns every regular file under the workspace, .git excluded.
func (e *env) tree() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			e.t.Fatal(err)
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				e.t.Fatal(err)
			}
			rel, _ := filepath.Rel(e.dir, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return out
}

func (e *env) write(name, content string) {
	e.t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) begin() *Checkpoint {
	e.t.Helper()
	c, err := e.m.Begin(context.Background(), "session", "turn")
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func mustEqualTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s missing", k)
		} else if g != v {
			t.Errorf("%s = %q, want %q", k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected file %s = %q", k, got[k])
		}
	}
}

// forEachStore runs f on the memory store. The durable stores live in
// sub-packages, which import this one; they run the conformance suite
// (internal/storetest) and their own restart and crash tests.
func forEachStore(t *testing.T, f func(t *testing.T, open func(t *testing.T) Store)) {
	t.Run("memory", func(t *testing.T) { f(t, func(*testing.T) Store { return NewMemoryStore() }) })
}
