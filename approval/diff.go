package approval

import "github.com/tetherdev/tether/internal/edit"

// DiffStats counts changed lines, as in a "+N −N" badge.
type DiffStats = edit.Stats

// UnifiedDiff returns a unified diff from old to new for the file at rel
// (slash-separated, workspace-relative), with contextLines lines of context
// (negative means the default of 3), and its line stats. created marks a file
// that did not exist, labelled /dev/null as git does. Binary content (a NUL
// byte or invalid UTF-8) gets a one-line summary instead of a diff.
func UnifiedDiff(rel string, old, new []byte, created bool, contextLines int) (string, DiffStats) {
	d := edit.FileDiff(rel, old, new, created, contextLines)
	return d.Unified, d.Stats
}
