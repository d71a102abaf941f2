package search

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

var update = flag.Bool("update", false, "rewrite the .want sections of testdata/*.txtar")

// section is one "-- name --" part of a txtar archive.
type section struct{ name, data string }

// parseTxtar reads the txtar format (golang.org/x/tools/txtar) without
// taking a dependency for twenty lines: a comment, then sections.
func parseTxtar(data string) (comment string, secs []section) {
	lines := strings.SplitAfter(data, "\n")
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur < 0 {
			comment = b.String()
		} else {
			secs[cur].data = b.String()
		}
		b.Reset()
	}
	for _, l := range lines {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			secs = append(secs, section{name: strings.TrimSpace(t[3 : len(t)-3])})
			cur = len(secs) - 1
			continue
		}
		b.WriteString(l)
	}
	flush()
	return comment, secs
}

func formatTxtar(comment string, secs []section) []byte {
	var b bytes.Buffer
	b.WriteString(comment)
	for _, s := range secs {
		b.WriteString("-- " + s.name + " --\n" + s.data)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	file := filepath.Join("testdata", "format.txtar")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	comment, secs := parseTxtar(string(raw))
	root := t.TempDir()
	for _, s := range secs {
		if p, ok := strings.CutPrefix(s.name, "files/"); ok {
			full := filepath.Join(root, filepath.FromSlash(p))
			require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
			require.NoError(t, os.WriteFile(full, []byte(s.data), 0o644))
		}
	}
	ws, err := safety.OpenWorkspace(root)
	require.NoError(t, err)
	defer ws.Close()
	tool := NewSearch(ws)
	changed := false
	for i, s := range secs {
		name, ok := strings.CutSuffix(s.name, ".args")
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), tools.Call{Arguments: json.RawMessage(s.data)})
			got := res.Text
			if err != nil {
				got = "error: " + err.Error()
			}
			got += "\n"
			wi := i + 1
			if wi >= len(secs) || secs[wi].name != name+".want" {
				t.Fatalf("%s.args must be followed by %s.want", name, name)
			}
			if *update {
				if secs[wi].data != got {
					secs[wi].data, changed = got, true
				}
				return
			}
			if got != secs[wi].data {
				t.Errorf("search_workspace %s\ngot:\n%s\nwant:\n%s", s.data, got, secs[wi].data)
			}
		})
	}
	if changed {
		require.NoError(t, os.WriteFile(file, formatTxtar(comment, secs), 0o644))
	}
}
