package search

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

	"github.com/tetherdev/tether/tools"
)

const svc = `package svc

// Service does things.
type Service struct{}

func (s *Service) GetUserName() string { return "x" }

func (s *Service) getusername() string { return "y" }
`

func searchTool(t *testing.T, files map[string]string) (tools.Tool, string) {
	root := tree(t, files)
	return NewSearch(dirWorkspace{root}), root
}

func call(t *testing.T, tool tools.Tool, args string) (tools.Result, error) {
	t.Helper()
	return tool.Execute(context.Background(), tools.Call{Arguments: json.RawMessage(args)})
}

func TestSearchFormat(t *testing.T) {
	tool, _ := searchTool(t, map[string]string{
		"src/services/myService.ts": "line 1\nbefore\nconst x = findMe();\nafter\nline 5\n",
		"src/utils/helper.ts":       "findMe\n",
		"src/none.ts":               "nothing here\n",
	})
	res, err := call(t, tool, `{"query":"findMe"}`)
	require.NoError(t, err)
	assert.Equal(t, `── src/services/myService.ts ──
  2: before
→ 3: const x = findMe();
  4: after

── src/utils/helper.ts ──
→ 1: findMe

[2 matches in 2 files]`, res.Text)
	assert.Equal(t, 2, res.Meta.Matches)
	assert.Equal(t, 2, res.Meta.Files)
}

func TestSearchQueries(t *testing.T) {
	tool, root := searchTool(t, map[string]string{
		"svc.go":          svc,
		"notes.txt":       "a|b literal\nfoo bar\nfoo\nbar\n",
		"crlf.txt":        "end\r\nstart\r\n",
		"empty.txt":       "",
		"bin.dat":         "GetUserName\x00\x01\x02",
		"latin1.txt":      "caf\xe9 GetUserName\n",
		".gitignore":      "ignored/\n",
		"ignored/x.go":    "GetUserName\n",
		"sub/deep/z.go":   "GetUserName here\n",
		".hidden/h.go":    "GetUserName\n",
		"noeol.txt":       "last GetUserName",
		"sub/deep/z_test": "zzz\n",
	})
	_ = root
	tests := []struct {
		name, args string
		want       []string // substrings of the result text
		not        []string
		err        string
	}{
		{name: "literal is case-sensitive", args: `{"query":"GetUserName","contextLines":0}`,
			want: []string{"→ 6: func (s *Service) GetUserName()", "── latin1.txt ──\n→ 1: caf\uFFFD GetUserName", "── noeol.txt ──\n→ 1: last GetUserName", "── sub/deep/z.go ──"},
			not:  []string{"getusername", "bin.dat", "ignored/", ".hidden"}},
		{name: "regex any case", args: `{"query":"(?i)getusername","isRegex":true,"contextLines":0}`,
			want: []string{"→ 6:", "→ 8:", "[5 matches in 4 files]"}},
		{name: "alternatives", args: `{"query":"Service|literal","isRegex":"true","contextLines":0}`,
			want: []string{"── notes.txt ──\n→ 1: a|b literal", "→ 3: // Service does things."}},
		{name: "literal keeps regex chars", args: `{"query":"a|b","contextLines":0}`, want: []string{"→ 1: a|b literal", "[1 match in 1 file]"}},
		{name: "wildcard within a line", args: `{"query":"foo.*bar","isRegex":true,"contextLines":0}`, want: []string{"→ 2: foo bar", "[1 match in 1 file]"}},
		{name: "\\s does not cross lines", args: `{"query":"foo\\sbar","isRegex":true,"contextLines":0}`, want: []string{"→ 2: foo bar", "[1 match in 1 file]"}},
		{name: "negated class does not cross lines", args: `{"query":"foo[^x]bar","isRegex":true}`, want: []string{"[1 match in 1 file]"}},
		{name: "anchors are per line", args: `{"query":"^bar$","isRegex":true,"contextLines":0}`, want: []string{"→ 4: bar", "[1 match in 1 file]"}},
		{name: "dollar before CR does not match", args: `{"query":"end$","isRegex":true,"path":"crlf.txt"}`, want: []string{"No matches"}},
		{name: "path narrows", args: `{"query":"GetUserName","path":"sub"}`, want: []string{"── sub/deep/z.go ──", "[1 match in 1 file]"}},
		{name: "include glob", args: `{"query":"GetUserName","include":"*.txt"}`, want: []string{"latin1.txt", "noeol.txt"}, not: []string{"svc.go"}},
		{name: "comma-separated globs", args: `{"query":"GetUserName","include":"*.txt, sub/**/*.go"}`, want: []string{"latin1.txt", "sub/deep/z.go"}, not: []string{"svc.go"}},
		{name: "brace glob", args: `{"query":"GetUserName","include":["**/*.{go,txt}"]}`, want: []string{"latin1.txt", "svc.go"}},
		{name: "no match hint", args: `{"query":"foo|nothing"}`, want: []string{`No matches for "foo|nothing"`, "set isRegex=true"}},
		{name: "binary counted", args: `{"query":"zzzz"}`, want: []string{"1 binary skipped"}},
		{name: "empty regex matches every line once", args: `{"query":"x*","isRegex":true,"path":"notes.txt","contextLines":0}`, want: []string{"[4 matches in 1 file]"}},
		{name: "bad regex", args: `{"query":"(unclosed","isRegex":true}`, err: "missing closing )"},
		{name: "newline regex", args: `{"query":"foo\\nbar","isRegex":true}`, err: "one line at a time"},
		{name: "missing query", args: `{}`, err: `missing required "query"`},
		{name: "outside", args: `{"query":"x","path":"../.."}`, err: "outside"},
		{name: "missing dir", args: `{"query":"x","path":"nope"}`, err: "does not exist"},
		{name: "bad glob", args: `{"query":"x","include":"[a"}`, err: "include glob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, tool, tt.args)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, res.Text, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, res.Text, n)
			}
		})
	}
}

func TestSearchCaps(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("hit\n", 25)
	}
	files["long.txt"] = strings.Repeat("é", 1000) + "hit\n"
	tool, _ := searchTool(t, files)
	res, err := call(t, tool, `{"query":"hit","maxResults":50,"contextLines":0}`)
	require.NoError(t, err)
	assert.Equal(t, 751, res.Meta.Matches)
	assert.Equal(t, 31, res.Meta.Files)
	assert.True(t, res.Meta.Truncated)
	assert.Equal(t, 701, res.Meta.OmittedItems)
	assert.Equal(t, 50, strings.Count(res.Text, "→ "))
	assert.Contains(t, res.Text, "[+5 more matches in this file]") // 25 in file, 20 kept
	assert.Contains(t, res.Text, "[Showing 50 of 751 matches in 3 of 31 files.")

	res, err = call(t, tool, `{"query":"hit","path":"long.txt"}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "é …\n") // cut at a rune boundary
	assert.Less(t, len(res.Text), 500)
}

func TestSearchSingularCounts(t *testing.T) {
	tool, _ := searchTool(t, map[string]string{"a.txt": strings.Repeat("hit\n", DefaultMaxPerFile+1)})
	res, err := call(t, tool, `{"query":"hit","contextLines":0}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "[+1 more match in this file]")
	assert.Contains(t, res.Text, "[Showing 20 of 21 matches in 1 of 1 file.")
	res, err = call(t, tool, `{"query":"miss"}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "(1 file searched)")
}

func TestSearchContextMerging(t *testing.T) {
	tool, _ := searchTool(t, map[string]string{"a.txt": "1\nx\nx\n4\n5\n6\nx\n"})
	res, err := call(t, tool, `{"query":"x","contextLines":2}`)
	require.NoError(t, err)
	assert.Equal(t, "── a.txt ──\n  1: 1\n→ 2: x\n→ 3: x\n  4: 4\n  5: 5\n  6: 6\n→ 7: x\n\n[3 matches in 1 file]", res.Text)
}

func TestSearchLargeFileSkipped(t *testing.T) {
	root := tree(t, map[string]string{"small.txt": "needle\n"})
	f, err := os.Create(filepath.Join(root, "huge.txt"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(DefaultMaxFileSize+1)) // sparse: no disk used
	f.Close()
	res, err := Search(context.Background(), os.DirFS(root), Query{Pattern: "needle"})
	require.NoError(t, err)
	assert.Equal(t, 1, res.SkippedLarge)
	assert.Equal(t, 1, res.Matches)
}
