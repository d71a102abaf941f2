package fstools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGetFileSize(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"a": "1\n2\n3", "e": "", "d/x": ""})
	r, err := call(t, NewSize(ws), `{"path":"a"}`)
	require.NoError(t, err)
	assert.Equal(t, "a: 3 lines, 5 bytes (5 bytes).", r.Text)
	assert.Equal(t, 3, r.Meta.TotalLines)
	r, err = call(t, NewSize(ws), `{"file":"e"}`)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Meta.TotalLines)
	for _, bad := range []struct{ args, err string }{
		{`{"path":"d"}`, "is a directory"},
		{`{"path":"zz"}`, "does not exist"},
		{`{"path":"/etc/passwd"}`, "outside the workspace"},
		{`{}`, `missing required "path"`},
	} {
		_, err := call(t, NewSize(ws), bad.args)
		require.Error(t, err, bad.args)
		assert.Contains(t, err.Error(), bad.err)
	}
}

func TestCreateFolder(t *testing.T) {
	ws, root := newWS(t, map[string]string{"f": ""})
	r, err := call(t, NewFolder(ws), `{"path":"a/b/c"}`)
	require.NoError(t, err)
	assert.True(t, r.Meta.Created)
	assert.DirExists(t, filepath.Join(root, "a/b/c"))
	r, err = call(t, NewFolder(ws), `{"directory":"a/b"}`)
	require.NoError(t, err)
	assert.Equal(t, "a/b already exists.", r.Text)
	_, err = call(t, NewFolder(ws), `{"path":"f"}`)
	assert.ErrorContains(t, err, "is a file")
	_, err = call(t, NewFolder(ws), `{"path":"../../outside"}`)
	assert.ErrorContains(t, err, "outside the workspace")
}

func TestRenameFile(t *testing.T) {
	ws, root := newWS(t, map[string]string{"a.txt": "A", "b.txt": "B", "dir/x": "X"})
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))

	r, err := call(t, NewRename(ws), `{"path":"a.txt","new_path":"sub/deep/a2.txt"}`)
	require.NoError(t, err)
	assert.Equal(t, "Renamed file a.txt to sub/deep/a2.txt.", r.Text)
	assert.Equal(t, "A", readBack(t, root, "sub/deep/a2.txt"))

	_, err = call(t, NewRename(ws), `{"source":"b.txt","destination":"sub/deep/a2.txt"}`)
	assert.ErrorContains(t, err, "already exists; set overwrite=true")
	_, err = call(t, NewRename(ws), `{"path":"b.txt","new_path":"sub/deep/a2.txt","overwrite":true}`)
	require.NoError(t, err)
	assert.Equal(t, "B", readBack(t, root, "sub/deep/a2.txt"))

	_, err = call(t, NewRename(ws), `{"path":"dir","new_path":"dir2"}`)
	require.NoError(t, err)
	assert.Equal(t, "X", readBack(t, root, "dir2/x"))

	for _, bad := range []struct{ args, err string }{
		{`{"path":"dir2/x","new_path":"../escaped"}`, "outside the workspace"},
		{`{"path":"dir2/x","new_path":"link/escaped"}`, "outside the workspace"},
		{`{"path":"/etc/hosts","new_path":"hosts"}`, "outside the workspace"},
		{`{"path":"nope","new_path":"x"}`, "does not exist"},
		{`{"path":"dir2/x","new_path":"dir2/x"}`, "are the same path"},
		{`{"path":"dir2/x","new_path":"sub"}`, "is an existing directory"},
		{`{"path":"dir2/x"}`, `missing required "new_path"`},
		{`{"path":".","new_path":"x"}`, "workspace root"},
	} {
		_, err := call(t, NewRename(ws), bad.args)
		require.Error(t, err, bad.args)
		assert.Contains(t, err.Error(), bad.err, bad.args)
	}
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries, "nothing may land outside the workspace")
}
