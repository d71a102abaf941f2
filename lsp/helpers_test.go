package lsp

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// needGopls skips the test when gopls is not installed, saying how to
// install it.
func needGopls(t testing.TB) {
	t.Helper()
	if _, err := LookPath("gopls"); err != nil {
		t.Skip("gopls not found on PATH or in $GOBIN/$GOPATH/bin; enable these tests with: GOFLAGS= go install golang.org/x/tools/gopls@v0.23.0 (v0.24+ needs Go 1.27)")
	}
}

// copyProject copies testdata/<name> into a temporary directory, so the
// language server works on a private copy.
func copyProject(t testing.TB, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	dst, _ = filepath.EvalSymlinks(dst)
	return dst
}
