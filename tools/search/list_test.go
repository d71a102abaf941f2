package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListFiles(t *testing.T) {
	root := tree(t, map[string]string{
		"a.go":         "package a\n",
		"src/b.go":     strings.Repeat("x", 2048),
		"src/c/d.go":   "",
		".gitignore":   "dist/\n",
		"dist/out.js":  "",
		".env":         "SECRET=1",
		"src/.hid/e.x": "",
	})
	tool := NewList(dirWorkspace{root})
	res, err := call(t, tool, `{}`)
	require.NoError(t, err)
	assert.Equal(t, "Contents of the workspace root:\na.go (10 B)\nsrc/", res.Text)

	res, err = call(t, tool, `{"path":"src","recursive":"true"}`)
	require.NoError(t, err)
	assert.Equal(t, "Contents of src (recursive):\nb.go (2.0 KiB)\nc/\nc/d.go (0 B)", res.Text)
	assert.Equal(t, 3, res.Meta.Entries)

	res, err = call(t, tool, `{"hidden":true}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, ".env")
	assert.NotContains(t, res.Text, "dist")

	for _, bad := range []struct{ args, err string }{
		{`{"path":"a.go"}`, "is a file"},
		{`{"path":"missing"}`, "cannot list"},
		{`{"path":"/etc"}`, "outside"},
		{`{"path":"../"}`, "outside"},
		{`{"maxEntries":"lots"}`, `"maxEntries" must be an integer`},
	} {
		_, err := call(t, tool, bad.args)
		require.Error(t, err, bad.args)
		assert.Contains(t, err.Error(), bad.err)
	}
}

func TestListCapped(t *testing.T) {
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("d/f%03d", i)] = ""
	}
	tool := NewList(dirWorkspace{tree(t, files)})
	res, err := call(t, tool, `{"recursive":true}`)
	require.NoError(t, err)
	assert.True(t, res.Meta.Truncated)
	assert.Equal(t, 51, res.Meta.OmittedItems)
	assert.Contains(t, res.Text, "[51 more entries not shown; 1 directories and 250 files in all.")
}
