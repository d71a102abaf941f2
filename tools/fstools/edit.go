package fstools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/internal/edit"
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
	ErrNoMatch   = edit.ErrNoMatch
	ErrAmbiguous = edit.ErrAmbiguous
)

// NewEdit returns edit_file: exact search and replace.
func NewEdit(ws Workspace) tools.Tool {
	return planned(EditName,
		"Replace exact text in a file. old_text must match the file exactly once (copy it from read_file without the line numbers); set replace_all to change every occurrence. If it does not match, the closest passages are shown with line numbers.",
		planEdit, ws, append(editAliases(), tools.WithPathTitle("Editing ", "Edited ", "Edit ", tools.KindEdit),
			tools.WithGuidance(tools.SectionRules, "Read a file before editing it; edit_file's old_text must match the file exactly."))...,
	)
}

func editAliases() []tools.Option {
	return []tools.Option{
		tools.WithArgAliases("old_text", "old_string", "oldText", "old", "search", "find", "original", "old_str", "search_text"),
		tools.WithArgAliases("new_text", "new_string", "newText", "new", "replace", "replacement", "new_str", "replace_text"),
		tools.WithArgAliases("replace_all", "all", "global"),
	}
}

func planEdit(ws Workspace, a EditArgs) (plan, error) {
	r, err := rel(ws, a.Path)
	if err != nil {
		return plan{}, err
	}
	content, st, err := loadText(ws, a.Path, r)
	if err != nil {
		return plan{}, err
	}
	done, err := edit.Replace(content, edit.Replacement{Old: a.OldText, New: a.NewText, All: a.ReplaceAll})
	var me *edit.MatchError
	switch {
	case errors.Is(err, edit.ErrEmpty):
		return plan{}, errors.New(`"old_text" is empty: give the exact text to replace (to add text, include a neighbouring line in old_text and new_text, or use modify_lines)`)
	case errors.Is(err, edit.ErrSame):
		return plan{}, errors.New("old_text and new_text are the same; nothing would change")
	case errors.As(err, &me) && errors.Is(err, edit.ErrNoMatch):
		hint := " Nothing similar was found; read the file again with read_file."
		if cands := me.Closest(3); len(cands) > 0 {
			hint = " The closest passages are below; copy the text exactly from one of them:" + edit.ShowCandidates(cands)
		}
		return plan{}, fmt.Errorf("%w in %s.%s", ErrNoMatch, r, strings.TrimRight(hint, "\n"))
	case errors.As(err, &me):
		lines := make([]string, len(me.Lines))
		for i, l := range me.Lines {
			lines[i] = fmt.Sprint(l)
		}
		return plan{}, fmt.Errorf("%w: it occurs %d times in %s, at lines %s. Include more surrounding lines to pick one, or set replace_all=true", ErrAmbiguous, len(me.Lines), r, strings.Join(lines, ", "))
	case err != nil:
		return plan{}, err
	}
	stats := edit.Count([]byte(content), []byte(done.Content))
	meta := tools.Meta{Path: r, StartLine: done.FirstLine, EndLine: done.LastLine, Added: stats.Added, Removed: stats.Removed, TotalLines: len(edit.SplitLines(done.Content))}
	note := ""
	if done.Note != "" {
		note = " (" + done.Note + ")"
	}
	text := fmt.Sprintf("Edited %s: replaced %s at line %d (+%d -%d)%s.", r, plural(done.Count, "occurrence"), done.FirstLine, stats.Added, stats.Removed, note)
	return plan{rel: r, before: []byte(content), existed: true, after: []byte(done.Content), perm: permOf(st),
		result: tools.Result{Text: text, Meta: meta}}, nil
}
