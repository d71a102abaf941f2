package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// URI returns the file:// URI of an absolute path.
func URI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// Path returns the file system path of a file:// URI.
func Path(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("lsp: bad URI %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("lsp: %q is not a file URI", uri)
	}
	return filepath.FromSlash(u.Path), nil
}

// UTF16Col converts a byte offset within line to the UTF-16 offset LSP
// positions use.
func UTF16Col(line string, byteCol int) int {
	byteCol = min(max(byteCol, 0), len(line))
	n := 0
	for _, r := range line[:byteCol] {
		n += utf16.RuneLen(r)
	}
	return n
}

// ByteCol converts an LSP UTF-16 offset within line to a byte offset,
// clamped to the line.
func ByteCol(line string, col16 int) int {
	n := 0
	for i, r := range line {
		if n >= col16 {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}

// SplitLines splits text into lines without their terminators ("\n" or
// "\r\n"), as LSP counts them.
func SplitLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
