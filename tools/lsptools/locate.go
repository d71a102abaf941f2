package lsptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

// Tool names, as models call them.
const (
	DocumentSymbolsName = "get_document_symbols"
	DefinitionName      = "find_definition"
	ReferencesName      = "find_references"
	ImplementationsName = "find_implementations"
	FindSymbolName      = "find_symbol"
	HoverName           = "get_hover_info"
	CallHierarchyName   = "get_call_hierarchy"
	TypeHierarchyName   = "get_type_hierarchy"
	DiagnosticsName     = "get_diagnostics"
)

// located is a position tool's input after the file was opened and the
// position resolved; done is set instead when the call is already
// answered (no language server: a graceful result).
type located struct {
	d    *doc
	t    target
	done *tools.Result
}

// locate opens the file and resolves the position; what names the result
// for the "no language server" answer ("definition").
func (k *kit) locate(ctx context.Context, a positionArgs, what string) (located, error) {
	d, err := k.open(ctx, a.Path)
	if err != nil {
		if res, ok := noServer(err, what); ok {
			return located{done: &res}, nil
		}
		return located{}, err
	}
	t, err := k.resolve(ctx, d, a)
	if err != nil {
		return located{}, err
	}
	return located{d: d, t: t}, nil
}

// locationsResult formats definition-like answers: one block per
// location with context lines.
func (k *kit) locationsResult(l located, locs []lsp.Location, what, hint string) tools.Result {
	src := k.sources()
	meta := tools.Meta{Path: l.d.rel, StartLine: l.t.line, EndLine: l.t.line}
	if len(locs) == 0 {
		return tools.Result{Text: fmt.Sprintf("No %s found for %s in %s. %s", what, l.t, l.d.rel, hint), Meta: meta}
	}
	locs = k.sortLocations(locs)
	shown := locs[:min(len(locs), k.cfg.MaxSymbols)]
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s in %s (%d):\n", capitalize(what), l.t, l.d.rel, len(locs))
	files := map[string]bool{}
	for _, loc := range shown {
		p := locPath(loc.URI)
		files[p] = true
		b.WriteString("\n")
		b.WriteString(src.block(p, loc.Range.Start, k.cfg.ContextLines))
	}
	if len(shown) < len(locs) {
		fmt.Fprintf(&b, "\n[%d more not shown]\n", len(locs)-len(shown))
		meta.Truncated, meta.OmittedItems = true, len(locs)-len(shown)
	}
	meta.Matches, meta.Files = len(locs), len(files)
	return tools.Result{Text: b.String(), Meta: meta}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// unsupported answers gracefully when the server lacks a feature.
func unsupported(d *doc, feature, instead string) tools.Result {
	return tools.Text(fmt.Sprintf("The %s language server does not support %s. %s", d.client.Name(), feature, instead))
}
