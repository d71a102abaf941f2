package tools

// Guidance is a line a tool adds to a section of an agent's system
// prompt when it is offered: how to use it well, said where the model
// reads strategy rather than in the tool's own description.
type Guidance struct {
	// Section is the heading the line goes under (see the Section
	// constants); an agent shows a section only when some offered tool
	// gives it a line.
	Section string
	Line    string
}

// The sections an agent's prompt builder knows.
const (
	SectionRules      = "RULES"
	SectionSearch     = "SEARCH TIPS"
	SectionNavigation = "CODE NAVIGATION STRATEGY"
)

// WithGuidance adds a line to a section of the system prompt of any agent
// that offers the tool.
func WithGuidance(section, line string) Option {
	return func(s *Spec) { s.Guidance = append(s.Guidance, Guidance{Section: section, Line: line}) }
}

// Guidance returns the lines the registered tools give section, in
// registration order.
func (r *Registry) Guidance(section string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for _, n := range r.order {
		for _, g := range r.entries[n].spec.Guidance {
			if g.Section == section {
				out = append(out, g.Line)
			}
		}
	}
	return out
}
