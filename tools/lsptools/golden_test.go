package lsptools

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/lsp"
)

var update = flag.Bool("update", false, "rewrite the .want sections of testdata/golden/*.txtar from gopls's answers")

// The golden files are txtar-like archives over testdata/shapes: each
// "-- NAME.call --" section holds one line, "TOOL {json args}", and the
// following "-- NAME.want --" section the exact text the model reads.
// They pin the output format (headers, → markers, grouping, counts).
// Regenerate with: go test ./tools/lsptools -run Golden -update

type goldenCase struct {
	name, call, want string
}

func parseGolden(t *testing.T, data string) []goldenCase {
	t.Helper()
	var cases []goldenCase
	var cur *goldenCase
	var section string
	var body strings.Builder
	flush := func() {
		if cur == nil {
			return
		}
		switch section {
		case "call":
			cur.call = strings.TrimSpace(body.String())
		case "want":
			cur.want = body.String()
			cases = append(cases, *cur)
			cur = nil
		}
		body.Reset()
	}
	for line := range strings.Lines(data) {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			flush()
			name := strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			base, kind, ok := strings.Cut(name, ".")
			require.True(t, ok && (kind == "call" || kind == "want"), "bad section %q", name)
			if kind == "call" {
				cur = &goldenCase{name: base}
			}
			require.NotNil(t, cur, "section %q without a .call before it", name)
			section = kind
			continue
		}
		body.WriteString(line)
	}
	flush()
	return cases
}

func TestGolden(t *testing.T) {
	needGopls(t)
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		ws := project(t, "shapes", nil)
		reg := registry(t, ws, lsp.DefaultServers())
		cases := parseGolden(t, string(data))
		var out strings.Builder
		for _, c := range cases {
			tool, args, _ := strings.Cut(c.call, " ")
			res := run(t, reg, tool, args)
			got := res.Text
			if !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			fmt.Fprintf(&out, "-- %s.call --\n%s\n-- %s.want --\n%s", c.name, c.call, c.name, got)
			if !*update {
				assert.Equal(t, c.want, got, "%s: %s", filepath.Base(file), c.name)
			}
		}
		if *update {
			require.NoError(t, os.WriteFile(file, []byte(out.String()), 0o644))
		}
	}
}
