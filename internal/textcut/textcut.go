// Package textcut shortens text for prompts, logs and UIs without ever
// cutting inside a UTF-8 sequence.
package textcut

import (
	"strings"
	"unicode/utf8"
)

// Excerpt returns s whole when it has at most n bytes, otherwise its
// first n bytes or fewer (back to a rune start) followed by "…".
func Excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// AtLine shortens s to at most n bytes, at a line end when one lies in
// the second half of the allowance, never inside a UTF-8 sequence.
func AtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], '\n'); i > n/2 {
		cut = i
	}
	return s[:cut]
}
