package lsptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/tools"
)

// maxHover bounds hover text (some servers include whole doc pages).
const maxHover = 8 << 10

func (k *kit) hover() tools.Tool {
	return tools.New(HoverName,
		"Show a symbol's type signature and documentation (doc comments, docstrings, parameter info) without opening its definition.",
		func(ctx context.Context, a positionArgs) (tools.Result, error) {
			l, err := k.locate(ctx, a, "hover information")
			if err != nil || l.done != nil {
				return deref(l.done), err
			}
			h, err := l.d.client.Hover(ctx, l.d.abs, l.t.pos)
			if err != nil {
				return tools.Result{}, err
			}
			meta := tools.Meta{Path: l.d.rel, StartLine: l.t.line, EndLine: l.t.line}
			if h == nil || strings.TrimSpace(h.Contents) == "" {
				return tools.Result{Text: fmt.Sprintf("No hover information for %s in %s.", l.t, l.d.rel), Meta: meta}, nil
			}
			text := strings.TrimSpace(h.Contents)
			if len(text) > maxHover {
				text = clip(text[:maxHover]) + "\n[hover text truncated]"
				meta.Truncated = true
			}
			return tools.Result{Text: fmt.Sprintf("Hover for %s in %s:\n\n%s", l.t, l.d.rel, text), Meta: meta}, nil
		}, posOptions("Use get_hover_info for a symbol's type, signature and documentation.")...)
}
