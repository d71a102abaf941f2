package fstools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readBack(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	require.NoError(t, err)
	return string(b)
}

func TestWriteAndCreate(t *testing.T) {
	ws, root := newWS(t, map[string]string{"a.txt": "one\ntwo\n", "crlf.txt": "x\r\ny\r\n", "bin": "\x00\x01", "d/keep": ""})
	w, c := NewWrite(ws), NewCreate(ws)

	r, err := call(t, w, `{"path":"a.txt","content":"one\nTWO\nthree\n"}`)
	require.NoError(t, err)
	assert.Equal(t, "Wrote a.txt (3 lines, 14 bytes; +2 -1).", r.Text)
	assert.Equal(t, 2, r.Meta.Added)
	assert.Equal(t, 1, r.Meta.Removed)
	assert.Equal(t, "one\nTWO\nthree\n", readBack(t, root, "a.txt"))

	r, err = call(t, w, `{"file_path":"new/deep/b.go","contents":"package b\n"}`)
	require.NoError(t, err)
	assert.True(t, r.Meta.Created)
	assert.Equal(t, "Created new/deep/b.go (1 line, 10 bytes; +1 -0).", r.Text)

	r, err = call(t, w, `{"path":"crlf.txt","content":"z\n","append":"true"}`)
	require.NoError(t, err)
	assert.Equal(t, "x\r\ny\r\nz\r\n", readBack(t, root, "crlf.txt")) // the file's line ending is kept
	assert.Equal(t, 1, r.Meta.Added)

	_, err = call(t, w, `{"path":"noeol.txt","content":"a"}`)
	require.NoError(t, err)
	_, err = call(t, w, `{"path":"noeol.txt","content":"b","append":true}`)
	require.NoError(t, err)
	assert.Equal(t, "a\nb", readBack(t, root, "noeol.txt"))

	_, err = call(t, c, `{"path":"a.txt","content":"x"}`)
	assert.ErrorContains(t, err, `"a.txt" already exists`)
	assert.Equal(t, "one\nTWO\nthree\n", readBack(t, root, "a.txt"))
	r, err = call(t, c, `{"path":"c.txt","content":""}`)
	require.NoError(t, err)
	assert.True(t, r.Meta.Created)

	for _, bad := range []struct{ args, err string }{
		{`{"path":"x.txt"}`, `missing required "content"`},
		{`{"content":"x"}`, `missing required "path"`},
		{`{"path":"../escape.txt","content":"x"}`, "outside the workspace"},
		{`{"path":"/tmp/escape.txt","content":"x"}`, "outside the workspace"},
		{`{"path":"d","content":"x"}`, "is a directory"},
		{`{"path":"bin","content":"x","append":true}`, "not UTF-8 text"},
	} {
		_, err := call(t, w, bad.args)
		require.Error(t, err, bad.args)
		assert.Contains(t, err.Error(), bad.err, bad.args)
	}
	_, err = os.Stat(filepath.Join(filepath.Dir(root), "escape.txt"))
	assert.True(t, os.IsNotExist(err))
	// Replacing a binary file wholesale is allowed (no stats for it).
	_, err = call(t, w, `{"path":"bin","content":"text now"}`)
	require.NoError(t, err)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), ".tmp"), "temp file left behind: %s", e.Name())
	}
}

func TestEditFile(t *testing.T) {
	src := "package x\n\nfunc A() {\n\treturn 1\n}\n\nfunc B() {\n\treturn 1\n}\n"
	tests := []struct {
		name, args, want, err string
		file                  string
	}{
		{name: "unique", args: `{"path":"x.go","old_text":"func A() {\n\treturn 1","new_text":"func A() {\n\treturn 2"}`,
			want: "package x\n\nfunc A() {\n\treturn 2\n}\n\nfunc B() {\n\treturn 1\n}\n"},
		{name: "aliases", args: `{"file":"x.go","old_string":"func B","new_string":"func C"}`,
			want: strings.Replace(src, "func B", "func C", 1)},
		{name: "replace all", args: `{"path":"x.go","old_text":"return 1","new_text":"return 0","replace_all":true}`,
			want: strings.ReplaceAll(src, "return 1", "return 0")},
		{name: "delete", args: `{"path":"x.go","old_text":"\nfunc B() {\n\treturn 1\n}\n","new_text":""}`,
			want: "package x\n\nfunc A() {\n\treturn 1\n}\n"},
		{name: "line numbers copied", args: `{"path":"x.go","old_text":"     3\tfunc A() {\n     4\t\treturn 1","new_text":"     3\tfunc A() {\n     4\t\treturn 5"}`,
			want: strings.Replace(src, "return 1", "return 5", 1)},
		{name: "trailing whitespace forgiven", args: `{"path":"x.go","old_text":"func A() {  \n\treturn 1 \n","new_text":"func A() {\n\treturn 3\n"}`,
			want: strings.Replace(src, "return 1", "return 3", 1)},
		{name: "ambiguous", args: `{"path":"x.go","old_text":"return 1","new_text":"return 2"}`,
			err: "old_text is not unique: it occurs 2 times in x.go, at lines 4, 8. Include more surrounding lines"},
		{name: "missing shows closest", args: `{"path":"x.go","old_text":"func A() {\n    return 1\n}","new_text":"x"}`,
			err: "old_text not found in x.go. The closest passages are below; copy the text exactly from one of them:\nLines 3-5 (100% similar; same text, different indentation or whitespace):\n     3\tfunc A() {\n     4\t\treturn 1\n     5\t}"},
		{name: "typo shows closest", args: `{"path":"x.go","old_text":"func Bee() {","new_text":"x"}`,
			err: "Lines 7-7 ("},
		{name: "nothing similar", args: `{"path":"x.go","old_text":"zzzzqqqq","new_text":"x"}`, err: "Nothing similar was found"},
		{name: "empty old", args: `{"path":"x.go","old_text":"","new_text":"x"}`, err: `"old_text" is empty`},
		{name: "same", args: `{"path":"x.go","old_text":"x","new_text":"x"}`, err: "are the same"},
		{name: "missing arg", args: `{"path":"x.go","old_text":"x"}`, err: `missing required "new_text"`},
		{name: "no file", args: `{"path":"nope.go","old_text":"x","new_text":"y"}`, err: "does not exist"},
		{name: "binary", file: "bin", args: `{"path":"bin","old_text":"a","new_text":"b"}`, err: "not UTF-8 text"},
		{name: "outside", args: `{"path":"/etc/hosts","old_text":"a","new_text":"b"}`, err: "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, root := newWS(t, map[string]string{"x.go": src, "bin": "a\x00b"})
			r, err := call(t, NewEdit(ws), tt.args)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Equal(t, src, readBack(t, root, "x.go"), "a failed edit must not change the file")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, readBack(t, root, "x.go"))
			assert.Equal(t, "x.go", r.Meta.Path)
			assert.NotZero(t, r.Meta.StartLine)
		})
	}
}

func TestEditCRLF(t *testing.T) {
	ws, root := newWS(t, map[string]string{"w.txt": "a\r\nb\r\nc\r\n"})
	_, err := call(t, NewEdit(ws), `{"path":"w.txt","old_text":"a\nb","new_text":"A\nB"}`)
	require.NoError(t, err)
	assert.Equal(t, "A\r\nB\r\nc\r\n", readBack(t, root, "w.txt"))
}
