package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func walkAll(t *testing.T, root, dir string, opt WalkOptions) []string {
	t.Helper()
	var got []string
	require.NoError(t, Walk(context.Background(), os.DirFS(root), dir, opt, func(p string, d fs.DirEntry, _ int) error {
		if d.IsDir() {
			p += "/"
		}
		got = append(got, p)
		return nil
	}))
	return got
}

func TestWalkIgnores(t *testing.T) {
	root := tree(t, map[string]string{
		".gitignore":          "*.log\nbuild/\n/top.txt\n!keep.log\n",
		"a.go":                "",
		"x.log":               "",
		"keep.log":            "",
		"top.txt":             "",
		"sub/top.txt":         "", // /top.txt is anchored to the root
		"sub/.gitignore":      "local.txt\n",
		"sub/local.txt":       "",
		"sub/y.log":           "",
		"other/local.txt":     "", // sub's .gitignore does not apply here
		"build/out.bin":       "",
		"sub/build/out.bin":   "",
		".hidden/file":        "",
		".git/config":         "",
		"docs/.ignore":        "draft.md\n",
		"docs/draft.md":       "",
		"docs/final.md":       "",
		".git/info/exclude":   "excluded.txt\n",
		"excluded.txt":        "",
		"vendor/.gitignore":   "*\n!.gitignore\n",
		"vendor/lib/x.go":     "",
		"notbuild/build.go":   "",
		"sub/deeper/keep.log": "",
	})
	require.NoError(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "link")))
	got := walkAll(t, root, ".", WalkOptions{})
	assert.Equal(t, []string{
		"a.go", "docs/", "docs/final.md", "keep.log", "link", "notbuild/", "notbuild/build.go",
		"other/", "other/local.txt", "sub/", "sub/deeper/", "sub/deeper/keep.log", "sub/top.txt", "vendor/",
		"vendor/.gitignore", // hidden, but re-included by "!.gitignore": ripgrep lists it too
	}, got)

	// Starting below the root, the ancestors' ignore files still apply.
	assert.Equal(t, []string{"deeper/", "deeper/keep.log", "top.txt"}, trimAll(walkAll(t, root, "sub", WalkOptions{}), "sub/"))
	// An ignored start directory yields nothing.
	assert.Empty(t, walkAll(t, root, "build", WalkOptions{}))

	all := walkAll(t, root, ".", WalkOptions{NoIgnore: true, Hidden: true})
	assert.Contains(t, all, "x.log")
	assert.Contains(t, all, ".hidden/file")
	assert.NotContains(t, all, ".git/config") // never

	assert.Equal(t, []string{"a.go", "docs/", "keep.log", "link", "notbuild/", "other/", "sub/", "vendor/"},
		walkAll(t, root, ".", WalkOptions{MaxDepth: 1}))
}

func trimAll(ss []string, prefix string) []string {
	for i, s := range ss {
		ss[i] = s[len(prefix):]
	}
	return ss
}

func TestWalkCancelled(t *testing.T) {
	root := tree(t, map[string]string{"a/b": ""})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Walk(ctx, os.DirFS(root), ".", WalkOptions{}, func(string, fs.DirEntry, int) error { return nil })
	assert.ErrorIs(t, err, context.Canceled)
}

// A directory re-included by name does not re-include the files inside it
// that an earlier pattern excludes by theirs (git and ripgrep agree).
func TestWalkReincludedDirKeepsNameExclusions(t *testing.T) {
	root := tree(t, map[string]string{
		".gitignore": "*.txt\n!dir\n",
		"dir/a.txt":  "",
		"dir/b.md":   "",
	})
	assert.Equal(t, []string{"dir/", "dir/b.md"}, walkAll(t, root, ".", WalkOptions{}))
}
