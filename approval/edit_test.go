package approval

import (
	"errors"
	"strings"
	"testing"
)

func TestApplyEdits(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edits   []Edit
		want    string
		err     error
	}{
		{"single", "a\nb\nc\n", []Edit{{OldText: "b\n", NewText: "B\n"}}, "a\nB\nc\n", nil},
		{"delete", "a\nb\nc\n", []Edit{{OldText: "b\n"}}, "a\nc\n", nil},
		{"sequential sees previous", "x", []Edit{{OldText: "x", NewText: "y"}, {OldText: "y", NewText: "z"}}, "z", nil},
		{"replace all", "a-a-a", []Edit{{OldText: "a", NewText: "b", ReplaceAll: true}}, "b-b-b", nil},
		{"ambiguous", "a-a", []Edit{{OldText: "a", NewText: "b"}}, "", ErrEditAmbiguous},
		{"missing", "abc", []Edit{{OldText: "abd", NewText: "x"}}, "", ErrEditNotFound},
		{"empty", "abc", []Edit{{NewText: "x"}}, "", ErrEditEmpty},
		{"crlf fallback", "a\r\nb\r\n", []Edit{{OldText: "a\nb\n", NewText: "c\nd\n"}}, "c\r\nd\r\n", nil},
		// Matching is edit_file's (one engine): text is written in the
		// file's dominant line ending, and a stray \r counts as trailing
		// whitespace.
		{"crlf file with one LF line", "a\r\nb\n", []Edit{{OldText: "b\n", NewText: "c\n"}}, "a\r\nc\r\n", nil},
		{"crlf old text in LF file", "a\nb\n", []Edit{{OldText: "a\r\nb", NewText: "x"}}, "x\n", nil},
		{"line numbers copied from read_file", "a\nb\n", []Edit{{OldText: "     2\tb", NewText: "c"}}, "a\nc\n", nil},
		{"later edit fails whole", "a b", []Edit{{OldText: "a", NewText: "c"}, {OldText: "zz", NewText: "y"}}, "", ErrEditNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyEdits("f.txt", tt.content, tt.edits)
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzApplyEdits holds applyEdits to what the edit engine promises
// (edit.Replace's godoc): exact matches are replaced as written, and a
// match that is not exact is found only after forgiving what cannot change
// the meaning: the line ending, trailing whitespace on each line, and
// read_file's line-number prefixes. So any success must be explained by
// an occurrence of the old text in the content once both are normalised
// that way, and an edit whose old text is not there fails even when it
// would change nothing.
func FuzzApplyEdits(f *testing.F) {
	f.Add("hello world\n", "world", "there", false)
	f.Add("a\r\nb\r\n", "a\nb", "x\ny", false)
	f.Add("aaa", "a", "b", true)
	f.Add("a \nb\n", "a\nb", "c", false)
	f.Add("a\nb\n", "     1\ta\n     2\tb", "c", false)
	f.Fuzz(func(t *testing.T, content, old, repl string, all bool) {
		got, err := applyEdits("f", content, []Edit{{OldText: old, NewText: repl, ReplaceAll: all}})
		n := strings.Count(content, old)
		plain := !strings.Contains(content+old+repl, "\r")
		switch {
		case old == "":
			if !errors.Is(err, ErrEditEmpty) {
				t.Fatalf("empty old_text: %v", err)
			}
		case err == nil && !strings.Contains(normalizeLines(content), normalizeOld(old)):
			t.Fatalf("succeeded without a match, even forgiving line endings, trailing whitespace and line numbers: %q", got)
		case !plain || old == repl:
			// Line endings are rewritten to the file's; the exact
			// result is checked by the table above.
		case n == 1 || (n > 1 && all):
			if err != nil || got != strings.ReplaceAll(content, old, repl) {
				t.Fatalf("exact match: got %q, %v", got, err)
			}
		case n > 1:
			if !errors.Is(err, ErrEditAmbiguous) {
				t.Fatalf("ambiguous: %v", err)
			}
		}
	})
}

// normalizeLines is s with "\r\n" read as "\n" and each line's trailing
// spaces, tabs and carriage returns removed.
func normalizeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

// normalizeOld is old text as the tolerant matcher may read it: without
// trailing line breaks, without read_file's "   12\t" prefixes when every
// line has one, and normalised as normalizeLines does. Prefixes are taken
// off before trailing whitespace, since an empty line's prefix ("   12\t")
// ends in the tab that trimming would remove.
func normalizeOld(old string) string {
	s := strings.TrimRight(old, "\r\n")
	lines := strings.Split(s, "\n")
	stripped := make([]string, len(lines))
	for i, l := range lines {
		j := 0
		for j < len(l) && l[j] == ' ' {
			j++
		}
		k := j
		for k < len(l) && l[k] >= '0' && l[k] <= '9' {
			k++
		}
		if k == j || k == len(l) || l[k] != '\t' {
			return normalizeLines(s)
		}
		stripped[i] = l[k+1:]
	}
	return normalizeLines(strings.Join(stripped, "\n"))
}
