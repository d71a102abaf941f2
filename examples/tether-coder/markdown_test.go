package main

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestStableCut(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // the stable prefix
	}{
		{"", ""},
		{"one paragraph still being", ""},
		{"first\n\nsecond", "first\n\n"},
		{"first\n\nsecond\n\nthi", "first\n\nsecond\n\n"},
		{"first\n\n```go\nx := 1\n\ny := 2", "first\n\n"}, // a blank line inside an open fence is no break
		{"```\ncode\n\n```\n\nafter", "```\ncode\n\n```\n\n"},
		{"first\n\n", "first\n\n"},
		{"first\n  \nsecond", "first\n  \n"}, // a line of spaces is blank
	} {
		if got := tc.text[:stableCut(tc.text)]; got != tc.want {
			t.Errorf("stableCut(%q) keeps %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestRenderStreaming renders the stable paragraphs once and the rest on
// every call, and shows all of the text.
func TestRenderStreaming(t *testing.T) {
	m := &markdown{}
	var s streamed
	text := "**Bold** start.\n\n- a list\n- of two\n\nAnd the tail"
	out := ansi.Strip(m.renderStreaming(&s, text, 80))
	for _, w := range []string{"Bold start.", "a list", "of two", "And the tail"} {
		if !strings.Contains(out, w) {
			t.Errorf("lacks %q:\n%s", w, out)
		}
	}
	if s.n != strings.Index(text, "And") {
		t.Errorf("stable prefix ends at %d, want before the tail", s.n)
	}
	head := s.head
	m.renderStreaming(&s, text+" grows", 80)
	if s.head != head {
		t.Error("a delta to the last paragraph rendered the stable ones again")
	}
}
