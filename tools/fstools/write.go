package fstools

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/tetherdev/tether/internal/edit"
	"github.com/tetherdev/tether/tools"
)

// WriteArgs are write_file's arguments.
type WriteArgs struct {
	Path    string `json:"path" jsonschema:"description=File to write\\, relative to the workspace root. Missing parent directories are created."`
	Content string `json:"content" jsonschema:"description=The complete new content of the file (or the text to add\\, with append=true)."`
	Append  bool   `json:"append,omitempty" jsonschema:"description=Add content at the end of the file instead of replacing it."`
}

// CreateArgs are create_file's arguments.
type CreateArgs struct {
	Path    string `json:"path" jsonschema:"description=New file to create\\, relative to the workspace root. Missing parent directories are created."`
	Content string `json:"content" jsonschema:"description=The content of the new file."`
}

// Tool names.
const (
	WriteName  = "write_file"
	CreateName = "create_file"
)

func contentAliases() tools.Option {
	return tools.WithArgAliases("content", "contents", "text", "data", "body", "file_content", "code", "new_content")
}

// NewWrite returns write_file: replace a file's content atomically, or
// append to it.
func NewWrite(ws Workspace) tools.Tool {
	return planned(WriteName,
		"Write a file: replace its whole content (or create it), or add to its end with append=true. The write is atomic: the file is never left half-written.",
		func(ws Workspace, a WriteArgs) (plan, error) {
			return planWrite(ws, a.Path, a.Content, a.Append, false)
		},
		ws, contentAliases(), tools.WithPathTitle("Writing ", "Wrote ", "Write ", tools.KindEdit),
		tools.WithGuidance(tools.SectionRules, "write_file replaces the whole file: send the complete content."),
	)
}

// NewCreate returns create_file: like write_file, but refuses to replace
// an existing file.
func NewCreate(ws Workspace) tools.Tool {
	return planned(CreateName,
		"Create a new file with the given content. Fails if the file exists: use write_file to replace it or edit_file to change part of it.",
		func(ws Workspace, a CreateArgs) (plan, error) { return planWrite(ws, a.Path, a.Content, false, true) },
		ws, contentAliases(), tools.WithPathTitle("Writing ", "Wrote ", "Write ", tools.KindEdit),
	)
}

func planWrite(ws Workspace, path, content string, appendMode, mustCreate bool) (plan, error) {
	r, err := rel(ws, path)
	if err != nil {
		return plan{}, err
	}
	st, err := ws.Stat(r)
	exists := err == nil
	p := plan{rel: r, existed: exists, perm: permOf(st)}
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return plan{}, err
	case exists && st.IsDir():
		return plan{}, fmt.Errorf("%q is a directory; give a file path", path)
	case exists && mustCreate:
		return plan{}, fmt.Errorf("%q already exists (%s); use write_file to replace it or edit_file to change part of it", path, humanBytes(st.Size()))
	case exists && appendMode:
		// Appending needs the old text; a file too large or not text is
		// never appended to blindly.
		b, _, err := loadText(ws, path, r)
		if err != nil {
			return plan{}, err
		}
		p.before = []byte(b)
	case exists:
		// The pre-image binds the change: it is what an approval was
		// shown and what the write checks the file still holds.
		if st.Size() > MaxEditSize {
			return plan{}, fmt.Errorf("%w: %q is %d bytes; write_file replaces files up to %d bytes; use run_terminal_command for larger files", ErrTooLarge, path, st.Size(), MaxEditSize)
		}
		if p.before, err = ws.ReadFile(r); err != nil {
			return plan{}, notFound(path, err)
		}
	}
	before := string(p.before)
	after := content
	if appendMode && exists {
		eol := edit.LineEnding(before)
		if before != "" && !endsWithNewline(before) && content != "" {
			after = before + eol + edit.WithEnding(content, eol)
		} else {
			after = before + edit.WithEnding(content, eol)
		}
	}
	p.after = []byte(after)
	st2 := edit.Count(p.before, p.after)
	meta := tools.Meta{Path: r, Bytes: int64(len(after)), Added: st2.Added, Removed: st2.Removed, Created: !exists, TotalLines: len(edit.SplitLines(after))}
	var verb string
	switch {
	case !exists:
		verb = "Created"
	case appendMode:
		verb = "Appended to"
	default:
		verb = "Wrote"
	}
	p.result = tools.Result{Text: fmt.Sprintf("%s %s (%s, %s; +%d -%d).", verb, r, plural(meta.TotalLines, "line"), humanBytes(meta.Bytes), st2.Added, st2.Removed), Meta: meta}
	return p, nil
}

func endsWithNewline(s string) bool { return len(s) > 0 && s[len(s)-1] == '\n' }
