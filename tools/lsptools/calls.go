package lsptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

type callHierarchyArgs struct {
	positionArgs
	Direction string `json:"direction,omitempty" jsonschema:"enum=incoming,enum=outgoing,enum=both,description=incoming: who calls this. outgoing: what this calls. Default both."`
}

func (k *kit) callHierarchy() tools.Tool {
	return tools.New(CallHierarchyName,
		"Trace call chains of a function or method: incoming calls (who calls it) and outgoing calls (what it calls), with the call sites.",
		func(ctx context.Context, a callHierarchyArgs) (tools.Result, error) {
			dir, err := direction(a.Direction, "incoming", "outgoing")
			if err != nil {
				return tools.Result{}, err
			}
			l, err := k.locate(ctx, a.positionArgs, "call hierarchy")
			if err != nil || l.done != nil {
				return deref(l.done), err
			}
			items, err := l.d.client.PrepareCallHierarchy(ctx, l.d.abs, l.t.pos)
			if lsp.IsMethodNotFound(err) {
				return unsupported(l.d, "call hierarchies", "Use find_references to find callers."), nil
			}
			if err != nil {
				return tools.Result{}, err
			}
			meta := tools.Meta{Path: l.d.rel, StartLine: l.t.line, EndLine: l.t.line}
			if len(items) == 0 {
				return tools.Result{Text: fmt.Sprintf("No function or method at %s in %s; point at a function's name.", l.t, l.d.rel), Meta: meta}, nil
			}
			src := k.sources()
			var b strings.Builder
			for _, item := range items {
				p := locPath(item.URI)
				fmt.Fprintf(&b, "Call hierarchy of %s %s — %s\n", item.Kind, item.Name, src.where(p, item.SelectionRange.Start))
				if dir.first {
					calls, err := l.d.client.IncomingCalls(ctx, item)
					if err != nil {
						return tools.Result{}, err
					}
					entries := make([]callEntry, len(calls))
					for i, c := range calls {
						entries[i] = callEntry{item: c.From, at: locPath(c.From.URI), ranges: c.FromRanges}
					}
					k.writeCalls(&b, src, "Incoming calls (callers)", entries, &meta)
				}
				if dir.second {
					calls, err := l.d.client.OutgoingCalls(ctx, item)
					if err != nil {
						return tools.Result{}, err
					}
					// Outgoing call sites are in the caller's file.
					entries := make([]callEntry, len(calls))
					for i, c := range calls {
						entries[i] = callEntry{item: c.To, at: p, ranges: c.FromRanges}
					}
					k.writeCalls(&b, src, "Outgoing calls (callees)", entries, &meta)
				}
			}
			return tools.Result{Text: b.String(), Meta: meta}, nil
		}, posOptions("Use get_call_hierarchy to trace call chains: who calls this, and what it calls.")...)
}

type callEntry struct {
	item   lsp.CallHierarchyItem
	at     string      // file holding the call sites
	ranges []lsp.Range // call sites
}

func (k *kit) writeCalls(b *strings.Builder, src *sources, title string, calls []callEntry, meta *tools.Meta) {
	fmt.Fprintf(b, "\n%s: %d\n", title, len(calls))
	if len(calls) == 0 {
		b.WriteString("  (none)\n")
		return
	}
	for i, c := range calls {
		if i == k.cfg.MaxSymbols {
			fmt.Fprintf(b, "  [%d more not shown]\n", len(calls)-i)
			meta.Truncated, meta.OmittedItems = true, meta.OmittedItems+len(calls)-i
			break
		}
		p := locPath(c.item.URI)
		fmt.Fprintf(b, "  %s %s — %s", c.item.Kind, c.item.Name, src.where(p, c.item.SelectionRange.Start))
		if d := strings.TrimSpace(c.item.Detail); d != "" {
			fmt.Fprintf(b, " (%s)", d)
		}
		b.WriteString("\n")
		for j, r := range c.ranges {
			if j == 3 {
				fmt.Fprintf(b, "    … %d more call sites\n", len(c.ranges)-j)
				break
			}
			if m := src.marked(c.at, r.Start); m != "" {
				fmt.Fprintf(b, "    %s:%s\n", k.displayPath(c.at), strings.TrimPrefix(m, "→ "))
			}
		}
		meta.Matches++
	}
}

// dirs says which of two directions to show.
type dirs struct{ first, second bool }

// direction parses "a", "b" or "both" (default both), forgiving case and
// a few synonyms models use.
func direction(s, a, b string) (dirs, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "both", "all":
		return dirs{true, true}, nil
	case a, "callers", "up", "parents", "super":
		return dirs{first: true}, nil
	case b, "callees", "down", "children", "sub":
		return dirs{second: true}, nil
	}
	return dirs{}, fmt.Errorf("direction %q: use %s, %s or both", s, a, b)
}
