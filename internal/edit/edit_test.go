package edit

import (
	"errors"
	"testing"
)

func TestReplace(t *testing.T) {
	tests := []struct {
		name, content string
		r             Replacement
		want          string
		note          string
		err           error
	}{
		{"exact", "a\nb\nc\n", Replacement{Old: "b", New: "B"}, "a\nB\nc\n", "", nil},
		{"all", "x-x-x", Replacement{Old: "x", New: "y", All: true}, "y-y-y", "", nil},
		{"ambiguous", "x-x", Replacement{Old: "x", New: "y"}, "", "", ErrAmbiguous},
		{"missing", "abc", Replacement{Old: "abd", New: "y"}, "", "", ErrNoMatch},
		{"empty", "abc", Replacement{New: "y"}, "", "", ErrEmpty},
		{"same", "abc", Replacement{Old: "b", New: "b"}, "", "", ErrSame},
		{"same but not there", "abc", Replacement{Old: "z", New: "z"}, "", "", ErrNoMatch},
		// Found by FuzzApplyEdits: stripped of its prefix, this old text
		// was empty, and looking for "" everywhere never ended.
		{"line-number prefix only", "0", Replacement{Old: "   1\t", New: "c"}, "", "", ErrNoMatch},
		{"blank old text is not matched loosely", "a\n\nb\n", Replacement{Old: "  \n", New: "x"}, "", "", ErrNoMatch},
		{"crlf file, lf text", "a\r\nb\r\n", Replacement{Old: "a\nb\n", New: "c\nd\n"}, "c\r\nd\r\n", "", nil},
		{"line numbers copied", "one\ntwo\n", Replacement{Old: "     2\ttwo", New: "     2\tTWO"}, "one\nTWO\n", "line-number prefixes in old_text were ignored", nil},
		{"trailing whitespace", "if x {  \n\treturn\n}\n", Replacement{Old: "if x {\n\treturn", New: "if y {\n\treturn"}, "if y {\n\treturn\n}\n", "matched ignoring trailing whitespace", nil},
		{"indentation is not forgiven", "\tfoo()\n", Replacement{Old: "    foo()", New: "bar()"}, "", "", ErrNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Replace(tt.content, tt.r)
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if got.Content != tt.want || got.Note != tt.note {
				t.Errorf("got %q (note %q), want %q (note %q)", got.Content, got.Note, tt.want, tt.note)
			}
		})
	}
}

func TestDiffAndCountAgree(t *testing.T) {
	before, after := []byte("a\nb\nc\nd\n"), []byte("a\nB\nc\nd\ne\n")
	d := FileDiff("f.txt", before, after, false, -1)
	if d.Stats != (Stats{Added: 2, Removed: 1}) || d.Stats != Count(before, after) {
		t.Fatalf("diff stats %v, count %v, want +2 −1 both", d.Stats, Count(before, after))
	}
	if want := "--- a/f.txt\n+++ b/f.txt\n"; d.Unified[:len(want)] != want {
		t.Errorf("diff header: %q", d.Unified)
	}
	created := FileDiff("new.txt", nil, []byte("x\n"), true, -1)
	if created.Unified[:len("--- /dev/null")] != "--- /dev/null" || created.Stats.Added != 1 {
		t.Errorf("created: %q %v", created.Unified, created.Stats)
	}
}

func TestBinary(t *testing.T) {
	for _, tt := range []struct {
		in   []byte
		want bool
	}{
		{[]byte("text\n"), false},
		{[]byte("nul\x00byte"), true},
		{[]byte{0xff, 0xfe, 'a'}, true}, // not UTF-8
		{nil, false},
	} {
		if got := IsBinary(tt.in); got != tt.want {
			t.Errorf("IsBinary(%q) = %v", tt.in, got)
		}
	}
	d := Unified("a/x", "b/x", []byte("a\x00"), []byte("b\x00"), -1)
	if !d.Binary || d.Stats != (Stats{}) || d.Unified == "" {
		t.Errorf("binary diff: %+v", d)
	}
	if Count([]byte("a\x00"), []byte("b\x00")) != (Stats{}) {
		t.Error("binary content counts lines")
	}
}
