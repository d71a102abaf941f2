package fstools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/tools"
)

// EditArgs are edit_file's arguments.
type EditArgs struct {
	Path       string `json:"path" jsonschema:"description=File to change\\, relative to the workspace root."`
	OldText    string `json:"old_text" jsonschema:"description=Exact text to replace\\, copied from the file with its indentation\\, without read_file's line numbers. Include enough lines to be unique."`
	NewText    string `json:"new_text" jsonschema:"description=Text to put in its place (empty to delete it)."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"description=Replace every occurrence instead of requiring exactly one."`
}

// EditName is edit_file's name.
const EditName = "edit_file"

// ErrNoMatch and ErrAmbiguous are what edit_file reports when old_text is
// missing or occurs more than once.
var (
	ErrNoMatch   = errors.New("old_text not found")
	ErrAmbiguous = errors.New("old_text is not unique")
)

// NewEdit returns edit_file: exact search and replace.
func NewEdit(ws Workspace) tools.Tool {
	return tools.New(EditName,
		"Replace exact text in a file. old_text must match the file exactly once (copy it from read_file without the line numbers); set replace_all to change every occurrence. If it does not match, the closest passages are shown with line numbers.",
		func(ctx context.Context, a EditArgs) (tools.Result, error) { return edit(ws, a) },
		tools.WithArgAliases("old_text", "old_string", "oldText", "old", "search", "find", "original", "old_str", "search_text"),
		tools.WithArgAliases("new_text", "new_string", "newText", "new", "replace", "replacement", "new_str", "replace_text"),
		tools.WithArgAliases("replace_all", "all", "global"),
	)
}

func edit(ws Workspace, a EditArgs) (tools.Result, error) {
	r, err := rel(ws, a.Path)
	if err != nil {
		return tools.Result{}, err
	}
	if a.OldText == "" {
		return tools.Result{}, errors.New(`"old_text" is empty: give the exact text to replace (to add text, include a neighbouring line in old_text and new_text, or use modify_lines)`)
	}
	if a.OldText == a.NewText {
		return tools.Result{}, errors.New("old_text and new_text are the same; nothing would change")
	}
	content, st, err := loadText(ws, a.Path, r)
	if err != nil {
		return tools.Result{}, err
	}
	eol := lineEnding(content)
	old, repl := withEnding(a.OldText, eol), withEnding(a.NewText, eol)

	var note string
	spans := exactSpans(content, old)
	if len(spans) == 0 {
		// What small models get wrong most: read_file's line numbers
		// copied along, and trailing whitespace. Both are safe to forgive;
		// differing indentation is not (it may be the point of the edit).
		if stripped, ok := stripLineNumbers(old); ok {
			if s := exactSpans(content, stripped); len(s) > 0 {
				spans, old, note = s, stripped, " (line-number prefixes in old_text were ignored)"
				if sn, ok := stripLineNumbers(repl); ok {
					repl = sn
				}
			}
		}
	}
	if len(spans) == 0 {
		if s := looseFind(content, old); len(s) > 0 {
			spans, note = s, " (matched ignoring trailing whitespace)"
		}
	}
	switch {
	case len(spans) == 0:
		hint := " Nothing similar was found; read the file again with read_file."
		if cands := closest(content, old, 3); len(cands) > 0 {
			hint = " The closest passages are below; copy the text exactly from one of them:" + showCandidates(cands)
		}
		return tools.Result{}, fmt.Errorf("%w in %s.%s", ErrNoMatch, r, strings.TrimRight(hint, "\n"))
	case len(spans) > 1 && !a.ReplaceAll:
		lines := make([]string, len(spans))
		for i, s := range spans {
			lines[i] = fmt.Sprint(lineOf(content, s[0]))
		}
		return tools.Result{}, fmt.Errorf("%w: it occurs %d times in %s, at lines %s. Include more surrounding lines to pick one, or set replace_all=true", ErrAmbiguous, len(spans), r, strings.Join(lines, ", "))
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
	if err := ws.WriteFile(r, []byte(after), permOf(st)); err != nil {
		return tools.Result{}, err
	}
	added, removed := diffStats(content, after)
	first := lineOf(content, spans[0][0])
	last := lineOf(after, spans[0][0]+len(repl))
	meta := tools.Meta{Path: r, StartLine: first, EndLine: max(first, last), Added: added, Removed: removed, TotalLines: len(splitLines(after))}
	text := fmt.Sprintf("Edited %s: replaced %s at line %d (+%d -%d)%s.", r, plural(len(spans), "occurrence"), first, added, removed, note)
	return tools.Result{Text: text, Meta: meta}, nil
}

func exactSpans(content, old string) [][2]int {
	offs := occurrences(content, old)
	spans := make([][2]int, len(offs))
	for i, o := range offs {
		spans[i] = [2]int{o, o + len(old)}
	}
	return spans
}
