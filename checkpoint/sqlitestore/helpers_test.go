package sqlitestore

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/safety"
)

var call1 = checkpoint.Call{ID: "call_1", Tool: "write_file"}

// workspaceFiles opens dir as the confined workspace the agent writes through.
func workspaceFiles(t testing.TB, dir string) checkpoint.Files {
	t.Helper()
	w, err := safety.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// tree returns every regular file under dir, .git excluded.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
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

// isTemp recognises the temp file of an interrupted atomic write by
// safety.Workspace.
func isTemp(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, ".tether-") && strings.HasSuffix(base, ".tmp")
}
