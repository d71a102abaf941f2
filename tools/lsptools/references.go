package lsptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

type referencesArgs struct {
	positionArgs
	IncludeDeclaration bool `json:"includeDeclaration,omitempty" jsonschema:"description=Also list the declaration itself. Default false: only the uses."`
}

func (k *kit) references() tools.Tool {
	return tools.New(ReferencesName,
		"Find every use of a function, method, type or variable across the workspace, grouped by file. "+
			"Use it before changing shared code to see what depends on it.",
		func(ctx context.Context, a referencesArgs) (tools.Result, error) {
			l, err := k.locate(ctx, a.positionArgs, "references")
			if err != nil || l.done != nil {
				return deref(l.done), err
			}
			locs, err := l.d.client.References(ctx, l.d.abs, l.t.pos, a.IncludeDeclaration)
			if err != nil {
				return tools.Result{}, err
			}
			return k.referencesResult(l, locs), nil
		}, posOptions("Use find_references before modifying shared code, to see everything that depends on it.")...)
}

// referencesResult lists references grouped by file, at most
// MaxReferences lines in all; files past the cap are still counted.
func (k *kit) referencesResult(l located, locs []lsp.Location) tools.Result {
	meta := tools.Meta{Path: l.d.rel, StartLine: l.t.line, EndLine: l.t.line}
	if len(locs) == 0 {
		return tools.Result{Text: fmt.Sprintf("No references found for %s in %s.", l.t, l.d.rel), Meta: meta}
	}
	locs = k.sortLocations(locs)
	type group struct {
		path string
		locs []lsp.Location
	}
	var groups []*group
	byPath := map[string]*group{}
	for _, loc := range locs {
		p := locPath(loc.URI)
		g := byPath[p]
		if g == nil {
			g = &group{path: p}
			byPath[p] = g
			groups = append(groups, g)
		}
		g.locs = append(g.locs, loc)
	}
	src := k.sources()
	var b strings.Builder
	fmt.Fprintf(&b, "Found %s to %s in %s, in %s:\n", plural(len(locs), "reference", "references"), l.t, l.d.rel, plural(len(groups), "file", "files"))
	shown := 0
	var skipped []string
	for _, g := range groups {
		if shown >= k.cfg.MaxReferences {
			skipped = append(skipped, fmt.Sprintf("%s (%d)", k.displayPath(g.path), len(g.locs)))
			continue
		}
		fmt.Fprintf(&b, "\n── %s (%d) ──\n", k.displayPath(g.path), len(g.locs))
		for i, loc := range g.locs {
			if shown >= k.cfg.MaxReferences {
				fmt.Fprintf(&b, "  … %d more in this file\n", len(g.locs)-i)
				break
			}
			if m := src.marked(g.path, loc.Range.Start); m != "" {
				b.WriteString(m + "\n")
			} else {
				fmt.Fprintf(&b, "→ %d\n", loc.Range.Start.Line+1)
			}
			shown++
		}
	}
	if shown < len(locs) {
		fmt.Fprintf(&b, "\n[showing %d of %d references", shown, len(locs))
		if len(skipped) > 0 {
			fmt.Fprintf(&b, "; not shown: %s", strings.Join(skipped, ", "))
		}
		b.WriteString("]\n")
		meta.Truncated, meta.OmittedItems = true, len(locs)-shown
	}
	meta.Matches, meta.Files = len(locs), len(groups)
	return tools.Result{Text: b.String(), Meta: meta}
}
