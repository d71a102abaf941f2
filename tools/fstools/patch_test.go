package fstools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func patchArgs(path, diff string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "diff": diff})
	return string(b)
}

func TestPatchFile(t *testing.T) {
	const src = "a\nb\nc\nd\ne\nf\ng\nh\n"
	tests := []struct {
		name, file, path, diff, want, err string
	}{
		{name: "exact", path: "f", diff: "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n", want: "a\nb\nC\nd\ne\nf\ng\nh\n"},
		{name: "shifted line numbers", path: "f", diff: "@@ -20,3 +20,3 @@\n f\n-g\n+G\n h\n", want: "a\nb\nc\nd\ne\nf\nG\nh\n"},
		{name: "no numbers", path: "f", diff: "@@ @@\n d\n-e\n+E1\n+E2\n", want: "a\nb\nc\nd\nE1\nE2\nf\ng\nh\n"},
		{name: "two hunks, offset carried", path: "f", diff: "@@ -1,2 +1,3 @@\n a\n+a2\n b\n@@ -7,2 +8,1 @@\n g\n-h\n", want: "a\na2\nb\nc\nd\ne\nf\ng\n"},
		{name: "path from header", diff: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n", want: "A\nb\nc\nd\ne\nf\ng\nh\n"},
		{name: "blank context line without space", file: "x\n\ny\n", path: "f", diff: "@@ -1,3 +1,3 @@\n x\n\n-y\n+Y\n", want: "x\n\nY\n"},
		{name: "trailing whitespace tolerated", file: "x  \ny\n", path: "f", diff: "@@ -1,2 +1,2 @@\n x\n-y\n+z\n", want: "x  \nz\n"},
		{name: "no newline at end", file: "x\ny", path: "f", diff: "@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n", want: "x\nz"},
		{name: "crlf kept", file: "x\r\ny\r\n", path: "f", diff: "@@ -1,2 +1,2 @@\n x\n-y\n+z\n", want: "x\r\nz\r\n"},
		{name: "rejected hunk leaves file unchanged", path: "f", diff: "@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -5,2 +5,2 @@\n e\n-zz\n+ZZ\n",
			err: "patch rejected: f is unchanged. 1 hunk did not apply:\nhunk 2 of 2 (@@ -5,2 +5,2 @@): its context and removed lines were not found in the file; the closest passage is:\nLines 5-6"},
		{name: "two files", path: "f", diff: "+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", err: "changes 2 files (x, y)"},
		{name: "no hunks", path: "f", diff: "just text", err: "the diff has no hunks"},
		{name: "bad line", path: "f", diff: "@@ -1 +1 @@\n*a\n", err: `starts with neither`},
		{name: "no path anywhere", diff: "@@ -1 +1 @@\n-a\n+b\n", err: `no "path" given`},
		{name: "outside", path: "../x", diff: "@@ -1 +1 @@\n-a\n+b\n", err: "outside the workspace"},
		{name: "header outside", diff: "+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", err: "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := src
			if tt.file != "" {
				file = tt.file
			}
			ws, root := newWS(t, map[string]string{"f": file})
			r, err := call(t, NewPatch(ws), patchArgs(tt.path, tt.diff))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Equal(t, file, readBack(t, root, "f"))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, readBack(t, root, "f"))
			assert.True(t, strings.HasPrefix(r.Text, "Patched f: applied"), r.Text)
		})
	}
	ws, _ := newWS(t, map[string]string{"f": src})
	_, err := call(t, NewPatch(ws), patchArgs("f", "@@ -1 +1 @@\n-zzz\n+y\n"))
	assert.True(t, errors.Is(err, ErrPatchRejected))
}

func FuzzParseDiff(f *testing.F) {
	f.Add("--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n")
	f.Add("@@ @@\n x\n\\ No newline at end of file\n")
	f.Fuzz(func(t *testing.T, diff string) {
		_, hunks, err := parseDiff(diff)
		if err == nil && len(hunks) == 0 {
			t.Fatal("no error and no hunks")
		}
	})
}
