package fstools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
)

// TestToolsMultiRoot: the file tools reach a workspace's further folder by
// its name, and a path that leaves the folder is refused with nothing
// written.
func TestToolsMultiRoot(t *testing.T) {
	_, app := newWS(t, map[string]string{"main.go": "package main\n"})
	_, lib := newWS(t, map[string]string{"util.go": "package lib\n"})
	ws, err := safety.OpenWorkspace(app, safety.WithFolder("lib", lib))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })

	r, err := call(t, NewRead(ws), `{"path":"lib/util.go"}`)
	require.NoError(t, err)
	assert.Contains(t, r.Text, "package lib")

	_, err = call(t, NewWrite(ws), `{"path":"lib/new/x.go","content":"package x\n"}`)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(lib, "new", "x.go"))
	require.NoError(t, err)
	assert.Equal(t, "package x\n", string(b))
	assert.NoDirExists(t, filepath.Join(app, "lib"))

	_, err = call(t, NewRename(ws), `{"path":"lib/new/x.go","new_path":"lib/y.go"}`)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(lib, "y.go"))

	for _, bad := range []struct{ tool, args string }{
		{"write", `{"path":"lib/../../x.go","content":"x"}`},
		{"write", `{"path":"lib/../main.go","content":"x"}`},
		{"rename", `{"path":"lib/y.go","new_path":"moved.go"}`},
	} {
		tool := NewWrite(ws)
		if bad.tool == "rename" {
			tool = NewRename(ws)
		}
		_, err := call(t, tool, bad.args)
		require.Error(t, err, bad.args)
	}
	b, err = os.ReadFile(filepath.Join(app, "main.go"))
	require.NoError(t, err)
	assert.Equal(t, "package main\n", string(b), "a refused write changed the primary root")
	assert.FileExists(t, filepath.Join(lib, "y.go"), "a refused rename moved the file")
	assert.NoFileExists(t, filepath.Join(app, "moved.go"))
}
