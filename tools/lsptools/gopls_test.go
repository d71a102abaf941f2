package lsptools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

// TestGopls runs every tool against real gopls on testdata/shapes. Each
// case lists lines the answer must contain and lines it must not.
func TestGopls(t *testing.T) {
	needGopls(t)
	ws := project(t, "shapes", map[string]string{".env": "SECRET=1\n"})
	reg := registry(t, ws, lsp.DefaultServers())
	tests := []struct {
		tool, args string
		want       []string
		not        []string
		isErr      bool
	}{
		{tool: "get_document_symbols", args: `{"path":"geom/shape.go"}`, want: []string{
			"Symbols in geom/shape.go (36 lines):",
			"interface Shape — interface{...}  (lines 7-10)\n  method Area — func() float64  (line 9)",
			"function Total — func(shapes ...Shape) float64  (lines 29-35)"}},
		{tool: "find_definition", args: `{"path":"main.go","symbolName":"Total"}`, want: []string{
			"Definition of Total at line 17, column 45 in main.go (1):",
			"── geom/shape.go:29:6 ──\n  27: \n  28: // Total adds up the areas of shapes.\n→ 29: func Total(shapes ...Shape) float64 {\n  30: \tsum := 0.0\n  31: \tfor _, s := range shapes {\n"}},
		// A qualified name resolves by its last part; the standard library
		// is outside the workspace, so only its path is shown.
		{tool: "find_definition", args: `{"path":"main.go","symbolName":"fmt.Sprintf"}`, want: []string{"print.go:", "(outside the workspace)"}},
		// Case-insensitive fallback, nearest the given line.
		{tool: "find_definition", args: `{"path":"main.go","symbolName":"HANDLEREQUEST","line":25}`, want: []string{"→ 24: func HandleRequest() string"}},
		{tool: "find_definition", args: `{"path":"main.go","line":17,"character":47}`, want: []string{"── geom/shape.go:29:6 ──"}},
		{tool: "find_references", args: `{"path":"geom/shape.go","symbolName":"Area","line":9}`, want: []string{
			"Found 1 reference to Area at line 9, column 2 in geom/shape.go, in 1 file:", "── geom/shape.go (1) ──\n→ 32: \t\tsum += s.Area()"}},
		{tool: "find_references", args: `{"path":"main.go","symbolName":"report","includeDeclaration":true}`, want: []string{
			"Found 3 references", "→ 10: \tfmt.Println(report())", "→ 14: func report() string {", "→ 21: func handleRequest() string { return report() }"}},
		{tool: "find_implementations", args: `{"path":"geom/shape.go","symbolName":"Shape"}`, want: []string{
			"Implementations of Shape at line 7, column 6 in geom/shape.go (2):", "→ 13: type Circle struct {", "→ 21: type Square struct {"}},
		{tool: "find_symbol", args: `{"query":"Circle"}`, want: []string{
			"struct Circle — geom/shape.go:13:6 (in example.com/shapes/geom)\n  → 13: type Circle struct {", "method Circle.Area"},
			not: []string{"runtime"}},
		{tool: "find_symbol", args: `{"query":"circle","kind":"struct"}`, want: []string{"Found 1 symbol matching", "struct Circle"}, not: []string{"method"}},
		{tool: "get_hover_info", args: `{"path":"main.go","symbolName":"Total"}`, want: []string{
			"Hover for Total at line 17, column 45 in main.go:", "func geom.Total(shapes ...geom.Shape) float64", "Total adds up the areas of shapes."}},
		{tool: "get_call_hierarchy", args: `{"path":"main.go","symbolName":"report"}`, want: []string{
			"Call hierarchy of function report — main.go:14:6", "Incoming calls (callers): 2", "function main — main.go:9:6",
			"main.go:10: \tfmt.Println(report())", "function handleRequest — main.go:21:6", "Outgoing calls (callees): 2", "function Total — geom/shape.go:29:6"}},
		{tool: "get_call_hierarchy", args: `{"path":"main.go","symbolName":"report","direction":"incoming"}`, want: []string{"Incoming calls"}, not: []string{"Outgoing"}},
		{tool: "get_type_hierarchy", args: `{"path":"geom/shape.go","symbolName":"Square"}`, want: []string{
			"Supertypes (it extends or implements): 1\n  interface Shape — geom/shape.go:7:6\n    → 7: type Shape interface {"}},
		{tool: "get_type_hierarchy", args: `{"path":"geom/shape.go","symbolName":"Shape","direction":"subtypes"}`, want: []string{"Subtypes (they extend or implement it): 2", "class Circle", "class Square"}},
		{tool: "get_diagnostics", args: `{"path":"main.go"}`, want: []string{"No problems found in main.go (gopls)."}},
		// Input errors come back as errors the model can act on.
		{tool: "find_definition", args: `{"path":"main.go","symbolName":"nothingLikeThis"}`, isErr: true, want: []string{`symbol "nothingLikeThis" not found in main.go`}},
		{tool: "find_definition", args: `{"path":"main.go","line":500}`, isErr: true, want: []string{"line 500 is past the end of main.go (25 lines)"}},
		{tool: "find_definition", args: `{"path":"main.go"}`, isErr: true, want: []string{"give symbolName"}},
		{tool: "find_definition", args: `{"path":"../outside.go","symbolName":"x"}`, isErr: true, want: []string{"outside"}},
		{tool: "get_hover_info", args: `{"path":".env","symbolName":"SECRET"}`, isErr: true, want: []string{"needs approval"}},
		{tool: "get_call_hierarchy", args: `{"path":"main.go","symbolName":"report","direction":"sideways"}`, isErr: true, want: []string{`"direction" must be one of "incoming", "outgoing", "both"`}},
		// No server for the file type: a graceful answer, not an error.
		{tool: "find_definition", args: `{"path":"go.mod","symbolName":"shapes"}`, want: []string{"No definition: no language server for .mod files"}},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			res := run(t, reg, tc.tool, tc.args)
			assert.Equal(t, tc.isErr, res.IsError, res.Text)
			for _, w := range tc.want {
				assert.Contains(t, res.Text, w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, res.Text, n)
			}
		})
	}
}

// TestGoplsDiagnosticsAfterEdit: diagnostics reflect the file as it is on
// disk now, not as the server first saw it.
func TestGoplsDiagnosticsAfterEdit(t *testing.T) {
	needGopls(t)
	ws := project(t, "shapes", nil)
	reg := registry(t, ws, lsp.DefaultServers())
	assert.Contains(t, run(t, reg, "get_diagnostics", `{"path":"main.go"}`).Text, "No problems")

	main := filepath.Join(ws.Root(), "main.go")
	b, err := os.ReadFile(main)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(main, []byte(strings.Replace(string(b), "return report()", "return undefinedThing", 1)), 0o644))
	res := run(t, reg, "get_diagnostics", `{"path":"main.go"}`)
	assert.False(t, res.IsError)
	assert.Contains(t, res.Text, "1 error in main.go (gopls):")
	assert.Contains(t, res.Text, "error main.go:21:38: undefined: undefinedThing")
	assert.Contains(t, res.Text, "→ 21: func handleRequest() string { return undefinedThing }")
	assert.Equal(t, 1, res.Meta.Matches)
}

// TestReferenceCap: past MaxReferences, references are counted per file,
// not shown.
func TestReferenceCap(t *testing.T) {
	needGopls(t)
	var uses strings.Builder
	uses.WriteString("package geom\n\nfunc uses() {\n")
	for range 40 {
		uses.WriteString("\t_ = Total()\n")
	}
	uses.WriteString("}\n")
	ws := project(t, "shapes", map[string]string{"geom/uses.go": uses.String(), "geom/more.go": "package geom\n\nvar _ = Total()\n"})
	m := &lsp.Manager{Root: ws.Root()}
	t.Cleanup(func() { m.Close(context.Background()) })
	ts, err := Tools(Config{Files: ws, Servers: m, MaxReferences: 10})
	require.NoError(t, err)
	var reg tools.Registry
	require.NoError(t, reg.Register(ts...))
	res := run(t, &reg, "find_references", `{"path":"geom/shape.go","symbolName":"Total"}`)
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "Found 42 references to Total")
	assert.Contains(t, res.Text, "in 3 files")
	assert.Contains(t, res.Text, "[showing 10 of 42 references")
	assert.Equal(t, 10, strings.Count(res.Text, "→ "), res.Text)
	assert.True(t, res.Meta.Truncated)
	assert.Equal(t, 32, res.Meta.OmittedItems)
	assert.Equal(t, 42, res.Meta.Matches)
}

// TestNoServerInstalled: with no server on PATH every tool answers
// gracefully, and get_diagnostics falls back to the toolchain tool.
func TestNoServerInstalled(t *testing.T) {
	ws := project(t, "shapes", nil)
	m := &lsp.Manager{Root: ws.Root(), LookPath: func(string) (string, error) { return "", fmt.Errorf("not installed") }}
	fallback := tools.New(DiagnosticsName, "toolchain", func(ctx context.Context, a diagnosticsArgs) (tools.Result, error) {
		return tools.Text("toolchain checked " + a.Path), nil
	}, tools.ReadOnly())
	var reg tools.Registry
	require.NoError(t, reg.Register(fallback))
	require.NoError(t, Register(&reg, Config{Files: ws, Servers: m}))
	for _, c := range [][2]string{
		{"get_document_symbols", `{"path":"main.go"}`},
		{"find_definition", `{"path":"main.go","symbolName":"report"}`},
		{"find_references", `{"path":"main.go","symbolName":"report"}`},
		{"find_implementations", `{"path":"main.go","symbolName":"report"}`},
		{"get_hover_info", `{"path":"main.go","symbolName":"report"}`},
		{"get_call_hierarchy", `{"path":"main.go","symbolName":"report"}`},
		{"get_type_hierarchy", `{"path":"main.go","symbolName":"report"}`},
		{"find_symbol", `{"query":"report"}`},
	} {
		res := run(t, &reg, c[0], c[1])
		assert.False(t, res.IsError, "%s: %s", c[0], res.Text)
		assert.Contains(t, res.Text, "no language server for .go files (looked for [gopls] on PATH)", c[0])
	}
	assert.Equal(t, "toolchain checked main.go", run(t, &reg, "get_diagnostics", `{"path":"main.go"}`).Text)
	assert.Equal(t, "toolchain checked ", run(t, &reg, "get_diagnostics", `{}`).Text)
	assert.Equal(t, "toolchain checked geom", run(t, &reg, "get_diagnostics", `{"path":"geom"}`).Text)
}

// TestGoplsSeesEditsToOpenFiles: a file the server has open is re-read
// before each answer, so edits the agent made since are not ignored.
func TestGoplsSeesEditsToOpenFiles(t *testing.T) {
	needGopls(t)
	ws := project(t, "shapes", nil)
	reg := registry(t, ws, lsp.DefaultServers())
	require.Contains(t, run(t, reg, "get_document_symbols", `{"path":"geom/shape.go"}`).Text, "function Total") // opens shape.go
	before := run(t, reg, "find_references", `{"path":"main.go","symbolName":"Total"}`)
	require.Contains(t, before.Text, "Found 1 reference")

	shape := filepath.Join(ws.Root(), "geom", "shape.go")
	b, err := os.ReadFile(shape)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(shape, append(b, "\nvar _ = Total()\n"...), 0o644))
	after := run(t, reg, "find_references", `{"path":"main.go","symbolName":"Total"}`)
	assert.Contains(t, after.Text, "Found 2 references", after.Text)
	assert.Contains(t, after.Text, "→ 37: var _ = Total()")
}

// TestBrokenServer: a server that is installed but cannot start (a rustup
// proxy without its component, say) gets the same graceful answer.
func TestBrokenServer(t *testing.T) {
	ws := project(t, "shapes", nil)
	broken := lsp.ServerSpec{Name: "broken", Command: "sh", Args: []string{"-c", "echo \"error: Unknown binary 'broken'\" >&2"}, Languages: map[string]string{".go": "go"}}
	reg := registry(t, ws, []lsp.ServerSpec{broken})
	res := run(t, reg, "find_definition", `{"path":"main.go","symbolName":"report"}`)
	assert.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "No definition: the broken language server is installed but failed to start (error: Unknown binary 'broken')")
	res = run(t, reg, "find_symbol", `{"query":"report"}`)
	assert.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "failed to start")
}

// TestReadRoots: a location under a read root is quoted like a workspace
// file; without the root only its path is shown.
func TestReadRoots(t *testing.T) {
	needGopls(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	goroot := strings.TrimSpace(string(out))
	ws := project(t, "shapes", nil)
	m := &lsp.Manager{Root: ws.Root()}
	t.Cleanup(func() { m.Close(context.Background()) })
	ts, err := Tools(Config{Files: ws, Servers: m, ReadRoots: []string{filepath.Join(goroot, "src")}})
	require.NoError(t, err)
	var reg tools.Registry
	require.NoError(t, reg.Register(ts...))
	res := run(t, &reg, "find_definition", `{"path":"main.go","symbolName":"Sprintf"}`)
	assert.Contains(t, res.Text, "→ ")
	assert.Contains(t, res.Text, "func Sprintf(format string, a ...any) string {")
	assert.NotContains(t, res.Text, "outside the workspace")
}
