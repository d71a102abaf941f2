package lsptools

import (
	"context"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

func (k *kit) definition() tools.Tool {
	return tools.New(DefinitionName,
		"Go to the definition of a function, method, type or variable used in a file: follows a call across files to its source. "+
			"The single best way to understand code you did not write. Name the symbol (symbolName) rather than guessing a column.",
		func(ctx context.Context, a positionArgs) (tools.Result, error) {
			l, err := k.locate(ctx, a, "definition")
			if err != nil || l.done != nil {
				return deref(l.done), err
			}
			locs, err := l.d.client.Definition(ctx, l.d.abs, l.t.pos)
			if err != nil {
				return tools.Result{}, err
			}
			return k.locationsResult(l, locs, "definition", "Try find_symbol with the name, or search_workspace."), nil
		}, posOptions("Use find_definition to follow a function or method call to its source.")...)
}

func (k *kit) implementations() tools.Tool {
	return tools.New(ImplementationsName,
		"Find the concrete implementations of an interface, abstract class or method: which types implement it and where.",
		func(ctx context.Context, a positionArgs) (tools.Result, error) {
			l, err := k.locate(ctx, a, "implementations")
			if err != nil || l.done != nil {
				return deref(l.done), err
			}
			locs, err := l.d.client.Implementation(ctx, l.d.abs, l.t.pos)
			if lsp.IsMethodNotFound(err) {
				return unsupported(l.d, "finding implementations", "Use find_references or search_workspace instead."), nil
			}
			if err != nil {
				return tools.Result{}, err
			}
			return k.locationsResult(l, locs, "implementations", "It may have none in this workspace, or the symbol is not an interface or method."), nil
		}, posOptions("Use find_implementations to find the concrete implementations of an interface or abstract method.")...)
}

// posOptions are the options of a tool asked about a position; guidance
// is its line of the code navigation strategy.
func posOptions(guidance string) []tools.Option {
	return []tools.Option{tools.ReadOnly(), tools.WithTimeout(DefaultTimeout), tools.WithKind(tools.KindAnalyze),
		tools.WithGuidance(tools.SectionNavigation, guidance),
		tools.WithArgAliases("symbolName", "symbol", "name", "function", "identifier")}
}

func deref(r *tools.Result) tools.Result {
	if r == nil {
		return tools.Result{}
	}
	return *r
}
