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
	return s[:runeStart(s, n)] + "…"
}

// AtLine shortens s to at most n bytes, at a line end when one lies in
// the second half of the allowance, never inside a UTF-8 sequence.
func AtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := runeStart(s, n)
	if i := strings.LastIndexByte(s[:cut], '\n'); i > n/2 {
		cut = i
	}
	return s[:cut]
}

// runeStart is the largest i <= n (n < len(s)) at which a rune of s
// starts, so s[:i] never ends inside a UTF-8 sequence.
func runeStart(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
