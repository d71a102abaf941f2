package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv("TETHER_FAKE_LSP"); mode != "" {
		os.Exit(fakeServer(mode))
	}
	goleak.VerifyTestMain(m)
}

func startGopls(t *testing.T) (*Client, string) {
	t.Helper()
	needGopls(t)
	root := copyProject(t, "shapes")
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	c, err := Start(ctx, DefaultServers()[0], root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close(context.Background())) })
	return c, root
}

func syncFile(t *testing.T, c *Client, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, c.Sync(context.Background(), path, string(b)))
	return string(b)
}

func TestGoplsRequests(t *testing.T) {
	c, root := startGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mainGo := filepath.Join(root, "main.go")
	shapeGo := filepath.Join(root, "geom", "shape.go")
	syncFile(t, c, mainGo)
	syncFile(t, c, shapeGo)

	// geom.Total in main.go line 17 (0-based 16): find the column.
	text, _ := os.ReadFile(mainGo)
	lines := SplitLines(string(text))
	col := strings.Index(lines[16], "Total")
	defs, err := c.Definition(ctx, mainGo, Position{Line: 16, Character: UTF16Col(lines[16], col)})
	require.NoError(t, err)
	require.Len(t, defs, 1)
	assert.Equal(t, URI(shapeGo), defs[0].URI)
	assert.Equal(t, 28, defs[0].Range.Start.Line)

	syms, err := c.DocumentSymbols(ctx, shapeGo)
	require.NoError(t, err)
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	assert.Subset(t, names, []string{"Shape", "Circle", "Square", "Total"})

	ws, err := c.WorkspaceSymbols(ctx, "Circle")
	require.NoError(t, err)
	require.NotEmpty(t, ws)
	assert.Equal(t, "Circle", ws[0].Name)

	h, err := c.Hover(ctx, mainGo, Position{Line: 16, Character: UTF16Col(lines[16], col)})
	require.NoError(t, err)
	require.NotNil(t, h)
	assert.Contains(t, h.Contents, "func geom.Total(shapes ...geom.Shape) float64")

	// Implementations of Shape (geom/shape.go line 7, 0-based 6, col 5).
	impls, err := c.Implementation(ctx, shapeGo, Position{Line: 6, Character: 5})
	require.NoError(t, err)
	assert.Len(t, impls, 2)

	refs, err := c.References(ctx, shapeGo, Position{Line: 6, Character: 5}, false)
	require.NoError(t, err)
	assert.NotEmpty(t, refs)

	items, err := c.PrepareCallHierarchy(ctx, mainGo, Position{Line: 13, Character: 5})
	require.NoError(t, err)
	require.Len(t, items, 1)
	in, err := c.IncomingCalls(ctx, items[0])
	require.NoError(t, err)
	var callers []string
	for _, call := range in {
		callers = append(callers, call.From.Name)
	}
	assert.ElementsMatch(t, []string{"main", "handleRequest"}, callers)
	out, err := c.OutgoingCalls(ctx, items[0])
	require.NoError(t, err)
	assert.NotEmpty(t, out)

	if c.Supports("typeHierarchyProvider") {
		th, err := c.PrepareTypeHierarchy(ctx, shapeGo, Position{Line: 12, Character: 5})
		require.NoError(t, err)
		require.Len(t, th, 1)
		sup, err := c.Supertypes(ctx, th[0])
		require.NoError(t, err)
		require.NotEmpty(t, sup)
		assert.Equal(t, "Shape", sup[0].Name)
	}
}

func TestGoplsDiagnostics(t *testing.T) {
	c, root := startGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mainGo := filepath.Join(root, "main.go")
	text := syncFile(t, c, mainGo)
	d, err := c.Diagnostics(ctx, mainGo)
	require.NoError(t, err)
	assert.Empty(t, d)

	broken := strings.Replace(text, "return report()", "return undefinedThing", 1)
	require.NoError(t, c.Sync(ctx, mainGo, broken))
	d, err = c.Diagnostics(ctx, mainGo)
	require.NoError(t, err)
	require.NotEmpty(t, d)
	assert.Contains(t, d[0].Message, "undefinedThing")
	assert.Equal(t, "error", d[0].Severity.String())
}
