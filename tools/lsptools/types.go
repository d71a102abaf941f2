package lsptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

type typeHierarchyArgs struct {
	positionArgs
	Direction string `json:"direction,omitempty" jsonschema:"enum=supertypes,enum=subtypes,enum=both,description=supertypes: what it extends or implements. subtypes: what extends or implements it. Default both."`
}

func (k *kit) typeHierarchy() tools.Tool {
	return tools.New(TypeHierarchyName,
		"Show the inheritance chain of a class, interface or type: its supertypes (what it extends or implements) and subtypes (what extends or implements it).",
		func(ctx context.Context, a typeHierarchyArgs) (tools.Result, error) {
			dir, err := direction(a.Direction, "supertypes", "subtypes")
			if err != nil {
				return tools.Result{}, err
			}
			l, err := k.locate(ctx, a.positionArgs, "type hierarchy")
			if err != nil || l.done != nil {
				return deref(l.done), err
			}
			if !l.d.client.Supports("typeHierarchyProvider") {
				return unsupported(l.d, "type hierarchies", "Use find_implementations instead."), nil
			}
			items, err := l.d.client.PrepareTypeHierarchy(ctx, l.d.abs, l.t.pos)
			if lsp.IsMethodNotFound(err) {
				return unsupported(l.d, "type hierarchies", "Use find_implementations instead."), nil
			}
			if err != nil {
				return tools.Result{}, err
			}
			meta := tools.Meta{Path: l.d.rel, StartLine: l.t.line, EndLine: l.t.line}
			if len(items) == 0 {
				return tools.Result{Text: fmt.Sprintf("No type at %s in %s; point at a type's name.", l.t, l.d.rel), Meta: meta}, nil
			}
			src := k.sources()
			var b strings.Builder
			for _, item := range items {
				fmt.Fprintf(&b, "Type hierarchy of %s %s — %s\n", item.Kind, item.Name, src.where(locPath(item.URI), item.SelectionRange.Start))
				if dir.first {
					sup, err := l.d.client.Supertypes(ctx, item)
					if err != nil {
						return tools.Result{}, err
					}
					k.writeTypes(&b, src, "Supertypes (it extends or implements)", sup, &meta)
				}
				if dir.second {
					sub, err := l.d.client.Subtypes(ctx, item)
					if err != nil {
						return tools.Result{}, err
					}
					k.writeTypes(&b, src, "Subtypes (they extend or implement it)", sub, &meta)
				}
			}
			return tools.Result{Text: b.String(), Meta: meta}, nil
		}, posOptions("Use get_type_hierarchy for inheritance chains: supertypes and subtypes.")...)
}

func (k *kit) writeTypes(b *strings.Builder, src *sources, title string, items []lsp.TypeHierarchyItem, meta *tools.Meta) {
	fmt.Fprintf(b, "\n%s: %d\n", title, len(items))
	if len(items) == 0 {
		b.WriteString("  (none)\n")
		return
	}
	for i, it := range items {
		if i == k.cfg.MaxSymbols {
			fmt.Fprintf(b, "  [%d more not shown]\n", len(items)-i)
			meta.Truncated, meta.OmittedItems = true, meta.OmittedItems+len(items)-i
			break
		}
		p := locPath(it.URI)
		fmt.Fprintf(b, "  %s %s — %s\n", it.Kind, it.Name, src.where(p, it.SelectionRange.Start))
		if m := src.marked(p, it.SelectionRange.Start); m != "" {
			fmt.Fprintf(b, "    %s\n", m)
		}
		meta.Matches++
	}
}
