package approval

import (
	"errors"
	"fmt"

	"github.com/tetherdev/tether/internal/edit"
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

// applyEdits applies edits in order to content, each to the result of the
// previous one, with the same matching as the edit_file tool: exact, with
// new and old text converted to the file's line endings, then forgiving
// copied line-number prefixes and trailing whitespace.
func applyEdits(path string, content string, edits []Edit) (string, error) {
	for i, e := range edits {
		done, err := edit.Replace(content, edit.Replacement{Old: e.OldText, New: e.NewText, All: e.ReplaceAll})
		var me *edit.MatchError
		switch {
		case errors.Is(err, edit.ErrSame):
			continue // changes nothing
		case errors.Is(err, edit.ErrEmpty):
			return "", &EditError{Path: path, Index: i, Err: ErrEditEmpty}
		case errors.As(err, &me) && errors.Is(err, edit.ErrAmbiguous):
			return "", &EditError{Path: path, Index: i, Matches: len(me.Lines), Err: ErrEditAmbiguous}
		case errors.As(err, &me):
			return "", &EditError{Path: path, Index: i, Err: ErrEditNotFound}
		case err != nil:
			return "", &EditError{Path: path, Index: i, Err: err}
		}
		content = done.Content
	}
	return content, nil
}
