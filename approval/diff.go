package approval

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// DiffStats counts changed lines, as in a "+N −N" badge.
type DiffStats struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

func (s DiffStats) String() string { return fmt.Sprintf("+%d −%d", s.Added, s.Removed) }

// UnifiedDiff returns a unified diff from old to new for the file at rel
// (slash-separated, workspace-relative), with contextLines lines of context
// (negative means the default of 3), and its line stats. created marks a file
// that did not exist, labelled /dev/null as git does. Binary content (NUL
// bytes or invalid UTF-8) gets a one-line summary instead of a diff.
func UnifiedDiff(rel string, old, new []byte, created bool, contextLines int) (string, DiffStats) {
	if contextLines < 0 {
		contextLines = udiff.DefaultContextLines
	}
	from, to := "a/"+rel, "b/"+rel
	if created {
		from = "/dev/null"
	}
	if isBinary(old) || isBinary(new) {
		if bytes.Equal(old, new) {
			return "", DiffStats{}
		}
		return fmt.Sprintf("Binary files %s and %s differ (%d bytes → %d bytes)\n", from, to, len(old), len(new)), DiffStats{}
	}
	edits := udiff.Lines(string(old), string(new))
	u, err := udiff.ToUnifiedDiff(from, to, string(old), edits, contextLines)
	if err != nil {
		// Lines produced the edits from old itself, so they always apply;
		// an error here is a bug in the diff library, not bad input.
		panic(fmt.Sprintf("approval: diff library rejected its own edits: %v", err))
	}
	var st DiffStats
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				st.Added++
			case udiff.Delete:
				st.Removed++
			}
		}
	}
	if len(u.Hunks) == 0 {
		return "", st
	}
	return u.String(), st
}

func isBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}
