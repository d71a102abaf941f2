package approval

import (
	"errors"
	"fmt"
	"strings"
)

// Edit replaces text in a file: the search-and-replace edit of edit_file.
type Edit struct {
	OldText    string `json:"old_text"`              // exact text to find; must not be empty
	NewText    string `json:"new_text"`              // replacement
	ReplaceAll bool   `json:"replace_all,omitempty"` // replace every occurrence instead of requiring exactly one
}

// Errors from applying edits; an *EditError matches one of them.
var (
	ErrEditNotFound  = errors.New("approval: edit text not found")
	ErrEditAmbiguous = errors.New("approval: edit text matches more than once")
	ErrEditEmpty     = errors.New("approval: edit has empty old_text")
)

// EditError says which edit failed and why, in terms a model can act on.
type EditError struct {
	Path    string // as the caller named it
	Index   int    // zero-based position in the edits
	Matches int    // occurrences found, for ErrEditAmbiguous
	Err     error  // ErrEditNotFound, ErrEditAmbiguous or ErrEditEmpty
}

func (e *EditError) Error() string {
	n := e.Index + 1
	switch {
	case errors.Is(e.Err, ErrEditNotFound):
		return fmt.Sprintf("edit %d: old_text not found in %s; read the file again and copy the text to replace exactly, including indentation", n, e.Path)
	case errors.Is(e.Err, ErrEditAmbiguous):
		return fmt.Sprintf("edit %d: old_text matches %d places in %s; include more surrounding lines to make it unique, or set replace_all", n, e.Matches, e.Path)
	case errors.Is(e.Err, ErrEditEmpty):
		return fmt.Sprintf("edit %d: old_text is empty; to create or overwrite %s write the whole file instead", n, e.Path)
	}
	return fmt.Sprintf("edit %d on %s: %v", n, e.Path, e.Err)
}

func (e *EditError) Unwrap() error { return e.Err }

// applyEdits applies edits in order to content. When old_text is not found
// verbatim in a file with CRLF line endings, it is retried with its LF line
// endings turned into CRLF (and new_text likewise), because models nearly
// always write LF.
func applyEdits(path string, content string, edits []Edit) (string, error) {
	for i, e := range edits {
		if e.OldText == "" {
			return "", &EditError{Path: path, Index: i, Err: ErrEditEmpty}
		}
		old, repl := e.OldText, e.NewText
		n := strings.Count(content, old)
		if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r\n") {
			old = strings.ReplaceAll(old, "\n", "\r\n")
			repl = strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", "\r\n")
			n = strings.Count(content, old)
		}
		switch {
		case n == 0:
			return "", &EditError{Path: path, Index: i, Err: ErrEditNotFound}
		case n > 1 && !e.ReplaceAll:
			return "", &EditError{Path: path, Index: i, Matches: n, Err: ErrEditAmbiguous}
		}
		content = strings.ReplaceAll(content, old, repl)
	}
	return content, nil
}
