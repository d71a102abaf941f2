package edit

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// DefaultContext is the number of context lines around a hunk.
const DefaultContext = 3

// binarySniff is how much of a file's start is searched for a NUL byte,
// as git does.
const binarySniff = 8000

// IsBinary reports content that is not diffed line by line: a NUL byte in
// its first 8000 bytes (git's heuristic), or bytes that are not UTF-8.
func IsBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), binarySniff)], 0) >= 0 || !utf8.Valid(b)
}

// Stats counts changed lines, as in a "+N −N" badge.
type Stats struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

func (s Stats) String() string { return fmt.Sprintf("+%d −%d", s.Added, s.Removed) }

// Diff is a unified diff between two versions of a file.
type Diff struct {
	// Unified is the diff text; a one-line summary for binary content;
	// empty when the versions are equal.
	Unified string
	Stats   Stats
	Binary  bool
}

// Unified diffs before and after, labelled from and to ("a/x", "b/x", or
// "/dev/null" for a side that does not exist), with contextLines lines of
// context (negative means DefaultContext). Binary content gets a one-line
// summary and no stats.
func Unified(from, to string, before, after []byte, contextLines int) Diff {
	if contextLines < 0 {
		contextLines = DefaultContext
	}
	if IsBinary(before) || IsBinary(after) {
		d := Diff{Binary: true}
		if !bytes.Equal(before, after) {
			d.Unified = fmt.Sprintf("Binary files %s and %s differ (%d bytes → %d bytes)\n", from, to, len(before), len(after))
		}
		return d
	}
	edits := udiff.Lines(string(before), string(after))
	d := Diff{Stats: StatsOf(string(before), edits)}
	u, err := udiff.ToUnified(from, to, string(before), edits, contextLines)
	if err != nil {
		// Lines produced the edits from before itself, so they always
		// apply; an error here is a bug in the diff library.
		panic(fmt.Sprintf("edit: diff library rejected its own edits: %v", err))
	}
	d.Unified = u
	return d
}

// FileDiff is Unified for one workspace file at rel (slash-separated),
// labelled as git labels it; created marks a file that did not exist.
func FileDiff(rel string, before, after []byte, created bool, contextLines int) Diff {
	from := "a/" + rel
	if created {
		from = "/dev/null"
	}
	return Unified(from, "b/"+rel, before, after, contextLines)
}

// Count returns the +N −N of a change without rendering a diff; binary
// content counts nothing.
func Count(before, after []byte) Stats {
	if bytes.Equal(before, after) || IsBinary(before) || IsBinary(after) {
		return Stats{}
	}
	return StatsOf(string(before), udiff.Lines(string(before), string(after)))
}

// StatsOf counts the lines edits (from udiff.Lines) remove from old and
// add; a subset of them gives the stats of one hunk.
func StatsOf(old string, edits []udiff.Edit) Stats {
	var s Stats
	for _, e := range edits {
		s.Removed += countLines(old[e.Start:e.End])
		s.Added += countLines(e.New)
	}
	return s
}

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
