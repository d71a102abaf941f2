package lsptools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// needGopls skips the test when gopls is not installed, saying how to
// install it.
func needGopls(t testing.TB) {
	t.Helper()
	if _, err := lsp.LookPath("gopls"); err != nil {
		t.Skip("gopls not found on PATH or in $GOBIN/$GOPATH/bin; enable these tests with: GOFLAGS= go install golang.org/x/tools/gopls@v0.23.0 (v0.24+ needs Go 1.27)")
	}
}

// project copies testdata/<name> to a temporary workspace.
func project(t testing.TB, name string, extra map[string]string) *safety.Workspace {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
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
	}))
	for p, c := range extra {
		full := filepath.Join(dst, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	ws, err := safety.OpenWorkspace(dst)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws
}

// registry wires the tools to ws with the given servers and returns the
// registry and the manager (closed at cleanup).
func registry(t testing.TB, ws *safety.Workspace, servers []lsp.ServerSpec) *tools.Registry {
	t.Helper()
	m := &lsp.Manager{Root: ws.Root(), Servers: servers}
	t.Cleanup(func() { require.NoError(t, m.Close(context.Background())) })
	var reg tools.Registry
	require.NoError(t, Register(&reg, Config{Files: ws, Servers: m}))
	return &reg
}

func run(t testing.TB, reg *tools.Registry, name, args string) tools.Result {
	t.Helper()
	return reg.Execute(context.Background(), tools.Call{Name: name, Arguments: []byte(args)})
}
