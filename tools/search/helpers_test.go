package search

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// dirWorkspace is a stand-in for *safety.Workspace: a DirFS and a lexical
// Rel. Confinement itself is safety's business and tested there.
type dirWorkspace struct{ root string }

func (w dirWorkspace) FS() fs.FS { return os.DirFS(w.root) }

func (w dirWorkspace) Rel(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.root, p)
	}
	r, err := filepath.Rel(w.root, filepath.Clean(p))
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", errors.New("path outside the workspace")
	}
	return filepath.ToSlash(r), nil
}

// tree writes files (path → content) under a new temp dir.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
	return root
}
