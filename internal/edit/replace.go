package edit

import (
	"errors"
	"fmt"
	"strings"
)

// Replacement is one search-and-replace edit.
type Replacement struct {
	Old string // text to find; must not be empty
	New string // its replacement
	All bool   // replace every occurrence instead of requiring exactly one
}

// Errors from Replace; a *MatchError matches ErrNoMatch or ErrAmbiguous.
var (
	ErrEmpty     = errors.New("old_text is empty")
	ErrSame      = errors.New("old_text and new_text are the same")
	ErrNoMatch   = errors.New("old_text not found")
	ErrAmbiguous = errors.New("old_text is not unique")
)

// MatchError says why the old text could not be placed.
type MatchError struct {
	Err     error // ErrNoMatch or ErrAmbiguous
	Content string
	Old     string
	Lines   []int // ErrAmbiguous: the 1-based line of each occurrence
}

func (e *MatchError) Error() string {
	if errors.Is(e.Err, ErrAmbiguous) {
		return fmt.Sprintf("%v: it occurs %d times", e.Err, len(e.Lines))
	}
	return e.Err.Error()
}

func (e *MatchError) Unwrap() error { return e.Err }

// Closest returns up to n passages of the content most like the old text,
// to show a model what the file really says.
func (e *MatchError) Closest(n int) []Candidate { return Closest(e.Content, e.Old, n) }

// Applied is the result of a replacement.
type Applied struct {
	Content   string
	Count     int    // occurrences replaced
	FirstLine int    // 1-based line of the first replacement in the old content
	LastLine  int    // 1-based line where it ends in the new content
	Note      string // how a non-exact match was found, for the model
}

// Replace applies r to content. Matching is exact first; old and new text
// written with \n are converted to the content's line ending. When the
// exact text is absent, two mistakes models make are forgiven because
// neither can change what is meant: read_file's line-number prefixes
// copied into the text, and trailing whitespace. Differing indentation is
// not forgiven: it may be the point of the edit.
//
// So a match that is not exact is always an occurrence of the old text in
// the content once both are read with "\r\n" as "\n", each line's
// trailing spaces, tabs and carriage returns removed, and (for the old
// text, when every line has one) read_file's "   12\t" prefixes removed;
// a tolerant match covers whole lines. Old text that is nothing but such
// prefixes or whitespace is never matched tolerantly. The old text must be
// found even when the new text equals it: ErrSame is returned only for
// text that is there, so a model's wrong picture of the file is never
// confirmed.
func Replace(content string, r Replacement) (Applied, error) {
	if r.Old == "" {
		return Applied{}, ErrEmpty
	}
	eol := LineEnding(content)
	old, repl := WithEnding(r.Old, eol), WithEnding(r.New, eol)

	var note string
	spans := exactSpans(content, old)
	if len(spans) == 0 {
		if stripped, ok := stripLineNumbers(old); ok && strings.TrimSpace(stripped) != "" {
			if s := exactSpans(content, stripped); len(s) > 0 {
				spans, old, note = s, stripped, "line-number prefixes in old_text were ignored"
				if sn, ok := stripLineNumbers(repl); ok {
					repl = sn
				}
			}
		}
	}
	if len(spans) == 0 {
		if s := looseFind(content, old); len(s) > 0 && strings.TrimSpace(old) != "" {
			spans, note = s, "matched ignoring trailing whitespace"
		}
	}
	switch {
	case len(spans) == 0:
		return Applied{}, &MatchError{Err: ErrNoMatch, Content: content, Old: old}
	case len(spans) > 1 && !r.All:
		lines := make([]int, len(spans))
		for i, s := range spans {
			lines[i] = LineOf(content, s[0])
		}
		return Applied{}, &MatchError{Err: ErrAmbiguous, Content: content, Old: old, Lines: lines}
	case r.Old == r.New:
		return Applied{}, ErrSame
	}

	var b strings.Builder
	prev := 0
	for _, s := range spans {
		b.WriteString(content[prev:s[0]])
		b.WriteString(repl)
		prev = s[1]
	}
	b.WriteString(content[prev:])
	after := b.String()
	first := LineOf(content, spans[0][0])
	last := LineOf(after, spans[0][0]+len(repl))
	return Applied{Content: after, Count: len(spans), FirstLine: first, LastLine: max(first, last), Note: note}, nil
}

func exactSpans(content, old string) [][2]int {
	offs := occurrences(content, old)
	spans := make([][2]int, len(offs))
	for i, o := range offs {
		spans[i] = [2]int{o, o + len(old)}
	}
	return spans
}
