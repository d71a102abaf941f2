package tools

import (
	"fmt"
	"strings"
)

// Prompt renders the tools for a model without native tool calling: one
// section per tool with its description and parameters, in registration
// order. The call format itself (tags, JSON envelope) is the prompt
// builder's business, not the registry's.
func (r *Registry) Prompt() string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var b strings.Builder
	for i, n := range r.order {
		e := r.entries[n]
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %s\n%s\n", e.spec.Name, strings.TrimSpace(e.spec.Description))
		if params := shape(e.schema, "  "); params != "" {
			b.WriteString("Arguments:\n")
			b.WriteString(params)
		} else {
			b.WriteString("Arguments: none\n")
		}
	}
	return b.String()
}
