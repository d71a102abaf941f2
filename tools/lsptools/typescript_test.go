package lsptools

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tetherdev/tether/lsp"
)

// TestTypeScript runs the tools against typescript-language-server when it
// is installed: the same tools, another language. find_definition comes
// last: asked first, cold, from main.ts alone, tsserver answers with the
// import binding rather than the declaration in shapes.ts.
func TestTypeScript(t *testing.T) {
	if _, err := lsp.LookPath("typescript-language-server"); err != nil {
		t.Skip("typescript-language-server not found on PATH; enable with: npm install -g typescript typescript-language-server")
	}
	ws := project(t, "tsshapes", nil)
	reg := registry(t, ws, lsp.DefaultServers())
	tests := []struct {
		tool, args string
		want       []string
	}{
		{"get_document_symbols", `{"path":"src/shapes.ts"}`, []string{"interface Shape", "class Circle", "function totalArea"}},
		{"find_implementations", `{"path":"src/shapes.ts","symbolName":"Shape"}`, []string{"→ 7: export class Circle implements Shape {"}},
		{"get_hover_info", `{"path":"src/main.ts","symbolName":"report"}`, []string{"function report(): string"}},
		{"find_references", `{"path":"src/shapes.ts","symbolName":"Circle"}`, []string{"── src/main.ts"}},
		{"find_symbol", `{"query":"totalArea"}`, []string{"function totalArea — src/shapes.ts:15"}},
		{"get_diagnostics", `{"path":"src/main.ts"}`, []string{"No problems found in src/main.ts (typescript-language-server)."}},
		{"find_definition", `{"path":"src/main.ts","symbolName":"totalArea","line":4}`, []string{"── src/shapes.ts:15:17 ──", "→ 15: export function totalArea(shapes: Shape[]): number {"}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			res := run(t, reg, tc.tool, tc.args)
			assert.False(t, res.IsError, res.Text)
			for _, w := range tc.want {
				assert.Contains(t, res.Text, w)
			}
		})
	}
}
