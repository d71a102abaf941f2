package textcut

import (
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"日本語", 4, "日…"}, // byte 4 is inside 本: back to its start
		{"日本語", 0, "…"},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.s, tt.n); got != tt.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestAtLine(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"line one\nline two\nline three", 20, "line one\nline two"},
		{"a\nbcdefghijklmnop", 10, "a\nbcdefghi"}, // the only line end is too early
		{"日本語", 4, "日"},
	}
	for _, tt := range tests {
		got := AtLine(tt.s, tt.n)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("AtLine(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
