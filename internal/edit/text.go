package edit

import "strings"

// SplitLines splits s into lines keeping their terminators, so that
// joining them gives s back exactly.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// LineEnding is "\r\n" when most of s's lines end so, else "\n".
func LineEnding(s string) string {
	crlf := strings.Count(s, "\r\n")
	if crlf > 0 && crlf*2 >= strings.Count(s, "\n") {
		return "\r\n"
	}
	return "\n"
}

// WithEnding converts text written with \n to the line ending eol.
func WithEnding(text, eol string) string {
	if eol == "\n" {
		return text
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", eol)
}
