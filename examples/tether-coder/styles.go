package main

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
)

// styles are the coder's colours. They are always written as ANSI styles;
// the terminal renderer (bubbletea, or colorprofile's writer in plain mode)
// downsamples them to what the output supports and drops them entirely
// when it is not a terminal or NO_COLOR is set.
type styles struct {
	dim, bold, ok, bad, warn, accent, add, del lipgloss.Style
	sevNone, sevMedium, sevHigh, sevCritical   lipgloss.Style
	user, status, card, selected               lipgloss.Style
}

func newStyles() styles {
	c := func(code string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(code)) }
	return styles{
		dim: lipgloss.NewStyle().Faint(true), bold: lipgloss.NewStyle().Bold(true),
		ok: c("2"), bad: c("1"), warn: c("3"), accent: c("6"), add: c("2"), del: c("1"),
		sevNone: c("2"), sevMedium: c("3"), sevHigh: c("208").Bold(true), sevCritical: c("1").Bold(true).Reverse(true),
		user:     c("6").Bold(true),
		status:   lipgloss.NewStyle().Reverse(true),
		card:     lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		selected: lipgloss.NewStyle().Reverse(true),
	}
}

// severityColour is the colour of a severity, also used for the card's border.
func (s styles) severityStyle(sev string) lipgloss.Style {
	switch sev {
	case "medium":
		return s.sevMedium
	case "high":
		return s.sevHigh
	case "critical":
		return s.sevCritical
	}
	return s.sevNone
}

func (s styles) severity(sev string) string {
	if sev == "critical" {
		return s.sevCritical.Render(" " + sev + " ")
	}
	return s.severityStyle(sev).Render(sev)
}

// diff colours a unified diff, indented by indent.
func (s styles) diff(u, indent string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(u, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			l = s.dim.Render(l)
		case strings.HasPrefix(l, "+"):
			l = s.add.Render(l)
		case strings.HasPrefix(l, "-"):
			l = s.del.Render(l)
		case strings.HasPrefix(l, "@@"):
			l = s.accent.Render(l)
		}
		b.WriteString(indent + l + "\n")
	}
	return b.String()
}

func (s styles) stat(added, removed int) string {
	return s.add.Render(fmt.Sprintf("+%d", added)) + " " + s.del.Render(fmt.Sprintf("−%d", removed))
}

func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines
}
