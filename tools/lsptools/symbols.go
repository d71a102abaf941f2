package lsptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

type documentSymbolsArgs struct {
	Path string `json:"path" jsonschema:"description=File to outline\\, relative to the workspace root."`
}

// maxDetail cuts long symbol details (full signatures).
const maxDetail = 100

func (k *kit) documentSymbols() tools.Tool {
	return tools.New(DocumentSymbolsName,
		"Outline a file: its classes, types, functions, methods and fields with their line ranges and nesting. "+
			"The cheapest way to understand a file's structure; use it before reading a large file.",
		func(ctx context.Context, a documentSymbolsArgs) (tools.Result, error) {
			d, err := k.open(ctx, a.Path)
			if err != nil {
				if res, ok := noServer(err, "symbols"); ok {
					return res, nil
				}
				return tools.Result{}, err
			}
			syms, err := d.client.DocumentSymbols(ctx, d.abs)
			if err != nil {
				return tools.Result{}, err
			}
			meta := tools.Meta{Path: d.rel, TotalLines: len(d.lines)}
			if len(syms) == 0 {
				return tools.Result{Text: fmt.Sprintf("No symbols found in %s.", d.rel), Meta: meta}, nil
			}
			var b strings.Builder
			n := 0
			var write func(ss []lsp.DocumentSymbol, depth int)
			write = func(ss []lsp.DocumentSymbol, depth int) {
				for _, s := range ss {
					n++
					fmt.Fprintf(&b, "%s%s %s", strings.Repeat("  ", depth), s.Kind, s.Name)
					if det := strings.TrimSpace(s.Detail); det != "" {
						det = strings.Join(strings.Fields(det), " ")
						if len(det) > maxDetail {
							det = clip(det[:maxDetail]) + "…"
						}
						fmt.Fprintf(&b, " — %s", det)
					}
					if s.Range.Start.Line == s.Range.End.Line {
						fmt.Fprintf(&b, "  (line %d)\n", s.Range.Start.Line+1)
					} else {
						fmt.Fprintf(&b, "  (lines %d-%d)\n", s.Range.Start.Line+1, s.Range.End.Line+1)
					}
					write(s.Children, depth+1)
				}
			}
			write(syms, 0)
			meta.Entries = n
			return tools.Result{Text: fmt.Sprintf("Symbols in %s (%d lines):\n%s", d.rel, len(d.lines), b.String()), Meta: meta}, nil
		}, tools.ReadOnly(), tools.WithTimeout(DefaultTimeout), tools.WithKind(tools.KindInspect),
		tools.WithGuidance(tools.SectionNavigation, "Use get_document_symbols before reading a large file: it gives the outline (types, functions, line ranges) in one call."))
}
