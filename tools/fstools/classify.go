package fstools

import (
	"bytes"
	"net/http"
	"strings"
	"unicode/utf8"
)

// classify says what a sample of a file's start is when it is not UTF-8
// text ("" when it is): "a binary file (image/png)", "UTF-16 text", "not
// UTF-8 text (…)". A sample may end in the middle of a rune.
func classify(sample []byte) string {
	switch {
	case bytes.HasPrefix(sample, []byte{0xFF, 0xFE}), bytes.HasPrefix(sample, []byte{0xFE, 0xFF}):
		return "UTF-16 text"
	case bytes.IndexByte(sample, 0) >= 0:
		kind := http.DetectContentType(sample)
		if i := strings.IndexByte(kind, ';'); i >= 0 {
			kind = kind[:i]
		}
		if kind == "application/octet-stream" || strings.HasPrefix(kind, "text/") {
			return "a binary file"
		}
		return "a binary file (" + kind + ")"
	}
	s := sample
	// A rune cut at the end of the sample is not an encoding error.
	i := len(s) - 1
	for k := 0; i > 0 && k < utf8.UTFMax-1 && !utf8.RuneStart(s[i]); k++ {
		i--
	}
	if i >= 0 && !utf8.FullRune(s[i:]) {
		s = s[:i]
	}
	if utf8.Valid(s) {
		return ""
	}
	return "not UTF-8 text (probably Latin-1 or Windows-1252)"
}
