package fstools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

func newWS(t testing.TB, files map[string]string) (*safety.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
	ws, err := safety.OpenWorkspace(root)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws, ws.Root()
}

func call(t testing.TB, tool tools.Tool, args string) (tools.Result, error) {
	t.Helper()
	return tool.Execute(context.Background(), tools.Call{Arguments: json.RawMessage(args)})
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	ws, root := newWS(t, map[string]string{
		"small.go":   "package x\n\nfunc A() {}\n",
		"long.txt":   numbered(1, 1234),
		"noeol.txt":  "a\nb",
		"crlf.txt":   "a\r\nb\r\n",
		"empty.txt":  "",
		"wide.txt":   strings.Repeat("w", 5000) + "\nnext\n",
		"latin1.txt": "caf\xe9\n",
		"utf16.txt":  "\xff\xfeh\x00i\x00",
		"image.png":  "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"dir/x":      "",
	})
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(root, "passwd")))
	tool := NewRead(ws)
	tests := []struct {
		name, args, want, err string
		check                 func(t *testing.T, r tools.Result)
	}{
		{name: "small", args: `{"path":"small.go"}`, want: "small.go (lines 1-3 of 3):\n     1\tpackage x\n     2\t\n     3\tfunc A() {}"},
		{name: "file alias and absolute path", args: `{"file":"` + root + `/noeol.txt"}`, want: "noeol.txt (lines 1-2 of 2):\n     1\ta\n     2\tb"},
		{name: "crlf", args: `{"path":"crlf.txt"}`, want: "crlf.txt (lines 1-2 of 2):\n     1\ta\n     2\tb"},
		{name: "empty", args: `{"path":"empty.txt"}`, want: "empty.txt is empty (0 bytes)."},
		{name: "default window", args: `{"path":"long.txt"}`, check: func(t *testing.T, r tools.Result) {
			assert.True(t, strings.HasPrefix(r.Text, "long.txt (lines 1-500 of 1234):\n     1\tline 1\n"))
			assert.True(t, strings.HasSuffix(r.Text, "   500\tline 500\n[Showing lines 1-500 of 1234. To read on, call read_file with start_line=501.]"), r.Text[len(r.Text)-200:])
			assert.Len(t, r.Meta.Chunks, 5)
			assert.Equal(t, tools.LineRange{Start: 401, End: 500}, r.Meta.Chunks[4])
			assert.Equal(t, 1234, r.Meta.TotalLines)
			assert.Equal(t, 734, r.Meta.OmittedLines)
		}},
		{name: "range, numbers as strings", args: `{"path":"long.txt","start_line":"1200","end_line":"1300"}`, check: func(t *testing.T, r tools.Result) {
			assert.True(t, strings.HasPrefix(r.Text, "long.txt (lines 1200-1234 of 1234):\n  1200\tline 1200\n"), r.Text)
			assert.False(t, r.Meta.Truncated)
			assert.Equal(t, []tools.LineRange{{Start: 1200, End: 1234}}, r.Meta.Chunks)
		}},
		{name: "range capped", args: `{"path":"long.txt","start_line":1,"end_line":100000}`, check: func(t *testing.T, r tools.Result) {
			assert.Equal(t, 1234, r.Meta.EndLine)
		}},
		{name: "long line cut", args: `{"path":"wide.txt"}`, check: func(t *testing.T, r tools.Result) {
			assert.Contains(t, r.Text, " [… 3000 more bytes on this line]\n     2\tnext")
			assert.Contains(t, r.Text, "[1 line longer than 2000 bytes were cut")
		}},
		{name: "latin1", args: `{"path":"latin1.txt"}`, want: "latin1.txt is not UTF-8 text (probably Latin-1 or Windows-1252) (5 bytes); its content is not shown. To read it"},
		{name: "utf16", args: `{"path":"utf16.txt"}`, want: "utf16.txt is UTF-16 text"},
		{name: "binary", args: `{"path":"image.png"}`, want: "image.png is a binary file (image/png) (16 bytes); its content is not shown."},
		{name: "start past end", args: `{"path":"small.go","start_line":10}`, err: "start_line 10 is past the end: small.go has 3 lines"},
		{name: "end before start", args: `{"path":"small.go","start_line":3,"end_line":2}`, err: "end_line 2 is before start_line 3"},
		{name: "missing path", args: `{}`, err: `missing required "path"`},
		{name: "mistyped", args: `{"path":"small.go","start_line":"first"}`, err: `"start_line" must be an integer`},
		{name: "directory", args: `{"path":"dir"}`, err: "is a directory"},
		{name: "missing file", args: `{"path":"nope.go"}`, err: "does not exist"},
		{name: "outside", args: `{"path":"../../etc/passwd"}`, err: "outside the workspace"},
		{name: "symlink out", args: `{"path":"passwd"}`, err: "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := call(t, tool, tt.args)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			if tt.want != "" {
				assert.True(t, strings.HasPrefix(r.Text, tt.want), "got %q", r.Text)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestReadFileReportsChunks(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"f.txt": numbered(1, 250)})
	var got []tools.Progress
	ctx := tools.WithReporter(context.Background(), func(p tools.Progress) { got = append(got, p) })
	_, err := NewRead(ws).Execute(ctx, tools.Call{Arguments: json.RawMessage(`{"path":"f.txt","start_line":11}`)})
	require.NoError(t, err)
	assert.Equal(t, []tools.Progress{
		{Tool: ReadName, Path: "f.txt", StartLine: 11, EndLine: 110},
		{Tool: ReadName, Path: "f.txt", StartLine: 111, EndLine: 210},
		{Tool: ReadName, Path: "f.txt", StartLine: 211, EndLine: 250},
	}, got)
}
