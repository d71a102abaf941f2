package agent

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
	"github.com/tetherdev/tether/internal/textcut"
	"github.com/tetherdev/tether/safety"
)

// ErrAttachment: an attachment in Input.Context could not be used; the
// message says which and why. The run does not start, so the model never
// answers about code it was not shown.
var ErrAttachment = errors.New("agent: bad attachment")

// Attachment is code the user attached to a message: a selection
// (StartLine > 0) or a whole file. It reaches the model at the start of the user's turn,
// labelled as already provided, so the model does not spend tool calls
// re-reading it.
type Attachment struct {
	// Path is the file as the editor names it, workspace-relative; in a
	// multi-root workspace it may start with the folder's name
	// ("search-node-master/src/ProcessSearch.ts"): the workspace's own
	// name is dropped when it holds nothing of that name, and the name of
	// a folder added with safety.WithFolder reads from that folder.
	Path string `json:"path"`
	// StartLine and EndLine are the 1-based inclusive lines of a
	// selection; both zero means the whole file.
	StartLine int `json:"start_line,omitempty"`
	EndLine   int `json:"end_line,omitempty"`
	// Content is the attached text. Empty means the executor reads it
	// from the workspace (the selected lines, or the file up to
	// MaxAttachmentBytes), through the same confinement and secret-file
	// rules as a file-reading tool.
	Content string `json:"content,omitempty"`
}

// MaxAttachmentBytes bounds a whole file the executor reads for an
// attachment; the label then says where the provided part ends.
const MaxAttachmentBytes = 32 << 10

var refPattern = lazyregexp.New(`^(.*?):L(\d+)(?:-L?(\d+))?$`)

// ParseAttachment reads an editor reference: "path/file.go" for a whole
// file, "path/file.go:L10-L50" or "path/file.go:L10" for a selection.
func ParseAttachment(ref string) (Attachment, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Attachment{}, fmt.Errorf("%w: empty reference; want path/file.go or path/file.go:L10-L50", ErrAttachment)
	}
	m := refPattern.FindStringSubmatch(ref)
	if m == nil {
		return Attachment{Path: ref}, nil
	}
	a := Attachment{Path: strings.TrimSpace(m[1])}
	var err1, err2 error
	a.StartLine, err1 = strconv.Atoi(m[2])
	a.EndLine = a.StartLine
	if m[3] != "" {
		a.EndLine, err2 = strconv.Atoi(m[3])
	}
	if err1 != nil || err2 != nil || a.StartLine < 1 {
		return Attachment{}, fmt.Errorf("%w: %q: line numbers start at 1 and must be reasonable numbers (path:L10-L50)", ErrAttachment, ref)
	}
	if err := a.check(); err != nil {
		return Attachment{}, err
	}
	return a, nil
}

func (a Attachment) check() error {
	switch {
	case strings.TrimSpace(a.Path) == "":
		return fmt.Errorf("%w: no path; set Attachment.Path to the file the code comes from", ErrAttachment)
	case a.StartLine < 0 || a.EndLine < 0:
		return fmt.Errorf("%w: %s: negative line numbers", ErrAttachment, a.Path)
	case a.StartLine == 0 && a.EndLine != 0:
		return fmt.Errorf("%w: %s: EndLine %d without StartLine; lines are 1-based", ErrAttachment, a.Path, a.EndLine)
	case a.EndLine < a.StartLine:
		return fmt.Errorf("%w: %s: selection ends (L%d) before it starts (L%d)", ErrAttachment, a.Path, a.EndLine, a.StartLine)
	}
	return nil
}

// Name is the attachment's file name as the model sees it:
// "src/a.go:L10-L50" for a selection, "src/a.go" for a whole file.
func (a Attachment) Name() string {
	if a.StartLine > 0 {
		return fmt.Sprintf("%s:L%d-L%d", a.Path, a.StartLine, a.EndLine)
	}
	return a.Path
}

// Label describes the attachment to the model: what it is, where it
// comes from, and that it is already provided.
func (a Attachment) Label() string {
	if a.StartLine > 0 {
		return "User's selected code from " + a.Name() + " (already provided — do not re-read):"
	}
	return "Contents of " + a.Name() + " (already provided — do not re-read):"
}

// FormatUserContext prepends the attachments to the user's prompt in
// this format, which tells the model not to read them again:
//
//	User's selected code from src/a.go:L10-L50 (already provided — do not re-read):
//	```
//	<code>
//	```
//
//	Contents of config.go (already provided — do not re-read):
//	```
//	<file contents>
//	```
//
//	<the user's prompt>
//
// A fence longer than any backtick run in the code is used, so code that
// itself contains ``` cannot end the block early.
func FormatUserContext(atts []Attachment, prompt string) string {
	if len(atts) == 0 {
		return prompt
	}
	var b strings.Builder
	for _, a := range atts {
		fence := fenceFor(a.Content)
		b.WriteString(a.Label())
		b.WriteString("\n")
		b.WriteString(fence)
		b.WriteString("\n")
		b.WriteString(strings.TrimRight(a.Content, "\n"))
		b.WriteString("\n")
		b.WriteString(fence)
		b.WriteString("\n\n")
	}
	b.WriteString(prompt)
	return b.String()
}

func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// selectLines returns lines [start, end] (1-based, inclusive) of text.
func selectLines(text string, start, end int) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	if start > len(lines) {
		return "", fmt.Errorf("the file has %d lines, the selection starts at line %d", len(lines), start)
	}
	end = min(end, len(lines))
	return strings.Join(lines[start-1:end], ""), nil
}

// loadAttachments fills in the content of attachments the host sent
// without it, reading through the workspace (confinement and secret-file
// rules apply: attaching .env needs the host to send its content
// itself). A path may carry the workspace folder's name as a prefix, or
// name one of the workspace's further folders (safety.WithFolder): the
// Workspace resolves both, as it does for every tool.
func loadAttachments(ws *safety.Workspace, atts []Attachment) ([]Attachment, error) {
	out := make([]Attachment, len(atts))
	for i, a := range atts {
		if err := a.check(); err != nil {
			return nil, err
		}
		if a.Content != "" {
			out[i] = a
			continue
		}
		if ws == nil {
			return nil, fmt.Errorf("%w: %s has no content and there is no workspace to read it from; send Attachment.Content", ErrAttachment, a.Name())
		}
		data, err := ws.ReadFile(a.Path)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrAttachment, a.Name(), err)
		}
		text := string(data)
		if a.StartLine > 0 {
			if text, err = selectLines(text, a.StartLine, a.EndLine); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrAttachment, a.Name(), err)
			}
		} else if len(text) > MaxAttachmentBytes {
			cut := textcut.AtLine(text, MaxAttachmentBytes)
			n := strings.Count(cut, "\n")
			a.StartLine, a.EndLine = 1, max(n, 1)
			text = cut
		}
		out[i] = a
		out[i].Content = text
	}
	return out, nil
}
