package fstools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

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
	return tools.New(WriteName,
		"Write a file: replace its whole content (or create it), or add to its end with append=true. The write is atomic: the file is never left half-written.",
		func(ctx context.Context, a WriteArgs) (tools.Result, error) {
			return write(ws, a.Path, a.Content, a.Append, false)
		},
		contentAliases(),
	)
}

// NewCreate returns create_file: like write_file, but refuses to replace
// an existing file.
func NewCreate(ws Workspace) tools.Tool {
	return tools.New(CreateName,
		"Create a new file with the given content. Fails if the file exists: use write_file to replace it or edit_file to change part of it.",
		func(ctx context.Context, a CreateArgs) (tools.Result, error) {
			return write(ws, a.Path, a.Content, false, true)
		},
		contentAliases(),
	)
}

func write(ws Workspace, path, content string, appendMode, mustCreate bool) (tools.Result, error) {
	r, err := rel(ws, path)
	if err != nil {
		return tools.Result{}, err
	}
	var before string
	var st fs.FileInfo
	st, err = ws.Stat(r)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return tools.Result{}, err
	case exists && st.IsDir():
		return tools.Result{}, fmt.Errorf("%q is a directory; give a file path", path)
	case exists && mustCreate:
		return tools.Result{}, fmt.Errorf("%q already exists (%s); use write_file to replace it or edit_file to change part of it", path, humanBytes(st.Size()))
	case exists:
		// Read the old content for diff stats (and to append to); a file
		// too large or not text is replaced without stats, but never
		// appended to blindly.
		b, _, lerr := loadText(ws, path, r)
		if lerr != nil && appendMode {
			return tools.Result{}, lerr
		}
		before = b
	}
	after := content
	if appendMode && exists {
		if before != "" && !endsWithNewline(before) && content != "" {
			after = before + lineEnding(before) + withEnding(content, lineEnding(before))
		} else {
			after = before + withEnding(content, lineEnding(before))
		}
	}
	if err := ws.WriteFile(r, []byte(after), permOf(st)); err != nil {
		return tools.Result{}, err
	}
	added, removed := diffStats(before, after)
	meta := tools.Meta{Path: r, Bytes: int64(len(after)), Added: added, Removed: removed, Created: !exists, TotalLines: len(splitLines(after))}
	var verb string
	switch {
	case !exists:
		verb = "Created"
	case appendMode:
		verb = "Appended to"
	default:
		verb = "Wrote"
	}
	return tools.Result{Text: fmt.Sprintf("%s %s (%s, %s; +%d -%d).", verb, r, plural(meta.TotalLines, "line"), humanBytes(meta.Bytes), added, removed), Meta: meta}, nil
}

func endsWithNewline(s string) bool { return len(s) > 0 && s[len(s)-1] == '\n' }
