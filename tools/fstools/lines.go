package fstools

import (
	"fmt"
	"strings"

	"github.com/tetherdev/tether/internal/edit"
	"github.com/tetherdev/tether/tools"
)

// ModifyArgs are modify_lines's arguments.
type ModifyArgs struct {
	Path      string `json:"path" jsonschema:"description=File to change\\, relative to the workspace root."`
	Operation string `json:"operation" jsonschema:"enum=insert,enum=delete,enum=replace,description=insert: add content before start_line (use the line count + 1 to append). delete: remove start_line..end_line. replace: put content in place of start_line..end_line."`
	StartLine int    `json:"start_line" jsonschema:"minimum=1,description=First line affected (1-based\\, as read_file numbers them)."`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"minimum=1,description=Last line affected\\, inclusive\\, for delete and replace. Default: start_line."`
	Content   string `json:"content,omitempty" jsonschema:"description=The lines to insert or to replace with."`
}

// ModifyName is modify_lines's name.
const ModifyName = "modify_lines"

// NewModifyLines returns modify_lines: insert, delete or replace lines by
// number, for edits a model can place by line but cannot quote exactly.
func NewModifyLines(ws Workspace) tools.Tool {
	return planned(ModifyName,
		"Insert, delete or replace lines of a file by line number (as read_file shows them). Prefer edit_file when you can quote the text; line numbers shift after every change, so re-read the file before a second modify_lines.",
		modifyLines, ws,
		tools.WithArgAliases("operation", "op", "action", "mode"),
		tools.WithArgAliases("start_line", "line", "line_number", "start", "from", "startLine"),
		tools.WithArgAliases("end_line", "end", "to", "endLine"),
		tools.WithArgAliases("content", "text", "lines", "new_content", "new_text"),
	)
}

func modifyLines(ws Workspace, a ModifyArgs) (plan, error) {
	r, err := rel(ws, a.Path)
	if err != nil {
		return plan{}, err
	}
	content, st, err := loadText(ws, a.Path, r)
	if err != nil {
		return plan{}, err
	}
	lines := edit.SplitLines(content)
	n := len(lines)
	eol := edit.LineEnding(content)
	start, end := a.StartLine, a.EndLine
	if end == 0 {
		end = start
	}
	newLines := edit.SplitLines(edit.WithEnding(a.Content, eol))
	if len(newLines) > 0 && !strings.HasSuffix(newLines[len(newLines)-1], "\n") {
		newLines[len(newLines)-1] += eol
	}
	switch a.Operation {
	case "insert":
		if start > n+1 {
			return plan{}, fmt.Errorf("start_line %d is past the end: %s has %s; use %d to append", start, r, plural(n, "line"), n+1)
		}
		if a.Content == "" {
			return plan{}, fmt.Errorf(`"content" is empty: give the lines to insert`)
		}
		end = start - 1 // replace nothing
	case "delete", "replace":
		if end < start {
			return plan{}, fmt.Errorf("end_line %d is before start_line %d", end, start)
		}
		if start > n || end > n {
			return plan{}, fmt.Errorf("lines %d-%d are out of range: %s has %s", start, end, r, plural(n, "line"))
		}
		if a.Operation == "delete" {
			newLines = nil
		}
	}
	// The file's last line may lack a newline; if lines are added after it
	// it needs one, and if the new last line is inserted content, keep the
	// file's original "no newline at end" only when it had none.
	if start > n && n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines[n-1] += eol
	}
	out := make([]string, 0, n+len(newLines))
	out = append(out, lines[:start-1]...)
	out = append(out, newLines...)
	out = append(out, lines[end:]...)
	if end >= n && n > 0 && !strings.HasSuffix(content, "\n") && len(out) > 0 {
		out[len(out)-1] = strings.TrimSuffix(strings.TrimSuffix(out[len(out)-1], "\n"), "\r")
	}
	after := strings.Join(out, "")
	stats := edit.Count([]byte(content), []byte(after))
	added, removed := stats.Added, stats.Removed
	meta := tools.Meta{Path: r, StartLine: start, EndLine: max(start, start+len(newLines)-1), Added: added, Removed: removed, TotalLines: len(out)}
	var what string
	switch a.Operation {
	case "insert":
		what = fmt.Sprintf("inserted %s before line %d", plural(len(newLines), "line"), start)
	case "delete":
		what = fmt.Sprintf("deleted lines %d-%d", start, end)
	default:
		what = fmt.Sprintf("replaced lines %d-%d with %s", start, end, plural(len(newLines), "line"))
	}
	res := tools.Result{Text: fmt.Sprintf("%s: %s (+%d -%d); the file now has %s.", r, what, added, removed, plural(len(out), "line")), Meta: meta}
	return plan{rel: r, before: []byte(content), existed: true, after: []byte(after), perm: permOf(st), result: res}, nil
}
