package search

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
)

// TestSearchRealWorkspace runs the tool over a *safety.Workspace: files
// are opened relative to directory handles, symlinks are never followed,
// and secrets are left out.
func TestSearchRealWorkspace(t *testing.T) {
	root := tree(t, map[string]string{
		"src/app.go":       "const token = lookup(\"API_TOKEN\")\n",
		"src/deep/x/y.go":  "API_TOKEN again\n",
		"config/prod.env":  "API_TOKEN=hunter2\n",
		"certs/server.key": "API_TOKEN in a key\n",
	})
	outside := tree(t, map[string]string{"secret.txt": "API_TOKEN outside\n"})
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "src", "link.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "linkdir")))
	ws, err := safety.OpenWorkspace(root)
	require.NoError(t, err)
	defer ws.Close()

	res, err := call(t, NewSearch(ws), `{"query":"API_TOKEN","contextLines":0}`)
	require.NoError(t, err)
	assert.Equal(t, "── src/app.go ──\n→ 1: const token = lookup(\"API_TOKEN\")\n\n── src/deep/x/y.go ──\n→ 1: API_TOKEN again\n\n[2 matches in 2 files]\n"+
		"[2 files that may hold secrets (.env, keys, credentials) not searched; read one with read_file if you need it, which asks the user.]", res.Text)

	// A file named directly is still subject to the rule.
	res, err = call(t, NewSearch(ws), `{"query":"API_TOKEN","path":"config/prod.env"}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "No matches")
	assert.Contains(t, res.Text, "1 file that may hold secrets")

	list, err := call(t, NewList(ws), `{"recursive":true}`)
	require.NoError(t, err)
	assert.Contains(t, list.Text, "linkdir@")
	assert.NotContains(t, list.Text, "secret.txt")
}

func TestOpenAtRefusesSymlink(t *testing.T) {
	root := tree(t, map[string]string{"real.txt": "x"})
	require.NoError(t, os.Symlink("real.txt", filepath.Join(root, "link.txt")))
	d, err := os.Open(root)
	require.NoError(t, err)
	defer d.Close()
	f, err := openAt(d, "real.txt")
	require.NoError(t, err)
	f.Close()
	_, err = openAt(d, "link.txt")
	assert.Error(t, err, "a file swapped for a symlink after the walk saw it must not be followed")
}

// TestSearchMultiRoot: over a workspace with a further folder, search and
// list reach the folder's files under its name, a folder's secrets are left
// out, and a symlink from the folder into the primary root is not followed.
func TestSearchMultiRoot(t *testing.T) {
	app := tree(t, map[string]string{"main.go": "TOKEN in app\n", ".env": "TOKEN=app\n"})
	lib := tree(t, map[string]string{"pkg/util.go": "TOKEN in lib\n", "config/prod.env": "TOKEN=lib\n"})
	require.NoError(t, os.Symlink(filepath.Join(app, ".env"), filepath.Join(lib, "pkg", "env.txt")))
	ws, err := safety.OpenWorkspace(app, safety.WithFolder("lib", lib))
	require.NoError(t, err)
	defer ws.Close()

	for _, tc := range []struct{ args, want string }{
		{`{"query":"TOKEN","contextLines":0}`, "── lib/pkg/util.go ──\n→ 1: TOKEN in lib\n\n── main.go ──\n→ 1: TOKEN in app\n\n[2 matches in 2 files]\n" +
			"[1 file that may hold secrets (.env, keys, credentials) not searched; read one with read_file if you need it, which asks the user.]"},
		{`{"query":"TOKEN","path":"lib","contextLines":0}`, "── lib/pkg/util.go ──\n→ 1: TOKEN in lib\n\n[1 match in 1 file]\n" +
			"[1 file that may hold secrets (.env, keys, credentials) not searched; read one with read_file if you need it, which asks the user.]"},
	} {
		res, err := call(t, NewSearch(ws), tc.args)
		require.NoError(t, err, tc.args)
		assert.Equal(t, tc.want, res.Text, tc.args)
	}
	_, err = call(t, NewSearch(ws), `{"query":"TOKEN","path":"lib/../../x"}`)
	require.ErrorIs(t, err, safety.ErrOutsideWorkspace)

	list, err := call(t, NewList(ws), `{"recursive":true}`)
	require.NoError(t, err)
	assert.Contains(t, list.Text, "lib/")
	assert.Contains(t, list.Text, "util.go")
}
