package toolcall

import (
	"strings"
	"testing"
)

// heldDef is the definition of a held word: the longest suffix of b
// that is a prefix of w, starting where GigaChat's role name may start
// when atStart is set.
func heldDef(b, w string, atStart bool) int {
	for n := min(len(b), len(w)); n > 0; n-- {
		k := len(b) - n
		if b[k:] == w[:n] && (!atStart || k == 0 || b[k-1] == '\n' || b[k-1] == '>') {
			return n
		}
	}
	return 0
}

// heldOf runs the stream's check on b.
func heldOf(b string) int {
	s := Stream{buf: []byte(b), pos: len(b)}
	return s.heldWords()
}

// TestHeldGigaChat checks the stream's held suffix against the
// definition for GigaChat 3's role name (and "functools").
func TestHeldGigaChat(t *testing.T) {
	for _, b := range []string{"", "f", "fu", "function", "function ", "function c", "function call",
		"function calll", "a function call", "x\nfunction ca", "<|message_sep|>function c", "of", "\nof",
		"function cal", "\nfunctio", "ll", "\nc", "functionfunc", "functoo", "x functools", "\nfunctools"} {
		if got, want := heldOf(b), max(heldDef(b, functoolsWord, false), heldDef(b, gigaWord, true)); got != want {
			t.Errorf("heldWords(%q) = %d, want %d", b, got, want)
		}
	}
}

// TestGigaChatMarkerSplit feeds GigaChat 3's role marker split at every
// byte: no text event may show any of it, and prose that turns out not
// to be the marker is shown once it cannot be.
func TestGigaChatMarkerSplit(t *testing.T) {
	in := "Сейчас посмотрю.\nfunction call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Москва\"}}"
	for cut := 1; cut < len(in); cut++ {
		s := NewStream()
		var text strings.Builder
		calls := 0
		// Events are read before the next Feed, as the API asks.
		read := func(evs []Event) {
			for _, e := range evs {
				switch e.Kind {
				case EventText:
					text.WriteString(e.Text)
				case EventCall:
					calls++
				}
			}
		}
		read(s.Feed(in[:cut]))
		read(s.Feed(in[cut:]))
		read(s.Flush())
		if text.String() != "Сейчас посмотрю.\n" || calls != 1 {
			t.Fatalf("cut %d: text %q, %d calls", cut, text.String(), calls)
		}
	}
	// Held only while it could still be the marker.
	cases := []struct{ feed, shown string }{
		{"Checking.\nfunction ca", "Checking.\n"},
		{"Checking.\nfunction calls", "Checking.\nfunction calls"},
		{"a function call", "a function call"},
		{"Checking.\nfunction call<|role", "Checking.\n"},
		{"Checking.\nfunction call<|tool", "Checking.\nfunction call"},
	}
	for _, c := range cases {
		s := NewStream()
		var text strings.Builder
		for _, e := range s.Feed(c.feed) {
			if e.Kind == EventText {
				text.WriteString(e.Text)
			}
		}
		if text.String() != c.shown {
			t.Errorf("Feed(%q) showed %q, want %q", c.feed, text.String(), c.shown)
		}
	}
}
