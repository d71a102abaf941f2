package main

import (
	"strings"

	"charm.land/glamour/v2"
)

// markdown renders model text with glamour, one renderer per width.
// Plain renders with the notty style, which uses no colour at all.
type markdown struct {
	plain bool
	width int
	r     *glamour.TermRenderer
}

func (m *markdown) render(text string, width int) string {
	if width < 20 {
		width = 20
	}
	if m.r == nil || m.width != width {
		style := "dark"
		if m.plain {
			style = "notty"
		}
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width-4))
		if err != nil {
			return text // the text itself is still readable
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(text)
	if err != nil {
		return text
	}
	// glamour pads every line to the wrap width; trailing blanks would
	// only make copied text and narrow resizes worse.
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// streamed is the rendering state of a text block that is still growing.
// Everything before its last paragraph break outside a code fence can no
// longer change, so it is rendered once and kept; each delta renders only
// the paragraph being written. A closed block is rendered whole, once.
type streamed struct {
	n, width int // the length of the stable prefix head was rendered from, and at what width
	head     string
}

func (m *markdown) renderStreaming(s *streamed, text string, width int) string {
	cut := stableCut(text)
	if s.n != cut || s.width != width {
		s.head = ""
		if cut > 0 {
			s.head = m.render(text[:cut], width)
		}
		s.n, s.width = cut, width
	}
	var tail string
	if strings.TrimSpace(text[cut:]) != "" {
		tail = m.render(text[cut:], width)
	}
	switch {
	case s.head == "":
		return tail
	case tail == "":
		return s.head
	}
	return s.head + "\n\n" + tail
}

// stableCut returns the offset just after the last blank line of text
// that is outside a fenced code block (0 if none).
func stableCut(text string) int {
	cut, fenced, off := 0, false, 0
	for line := range strings.SplitAfterSeq(text, "\n") {
		off += len(line)
		if !strings.HasSuffix(line, "\n") {
			break // the line being written
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fenced = !fenced
		case trimmed == "" && !fenced:
			cut = off
		}
	}
	return cut
}
