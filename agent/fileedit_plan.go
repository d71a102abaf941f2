package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// editPlanner computes a file's new content from a call's arguments and
// the current content (nil and exists=false for a new file). It never
// touches the disk: the handler shows the diff, asks, and writes.
type editPlanner func(args map[string]json.RawMessage, old []byte, exists bool) ([]byte, error)

// defaultPlanners maps the canonical names of the file-edit tools to the
// way their arguments describe the new content, for approval previews.
func defaultPlanners() map[string]editPlanner {
	return map[string]editPlanner{
		"write_file":  planWrite,
		"create_file": planCreate,
		"edit_file":   planEdit,
	}
}

func planCreate(args map[string]json.RawMessage, old []byte, exists bool) ([]byte, error) {
	if exists {
		return nil, errors.New("the file exists")
	}
	return planWrite(args, old, exists)
}

var contentKeys = []string{"content", "contents", "text", "data", "code", "file_content", "new_content"}

// planWrite replaces the whole file. An explicitly empty content is a
// valid (empty) file; a missing one is an error, never a truncation.
func planWrite(args map[string]json.RawMessage, _ []byte, _ bool) ([]byte, error) {
	var appendMode bool
	if v, ok := args["append"]; ok && json.Unmarshal(v, &appendMode) == nil && appendMode {
		// The tool's line-ending rules decide what an append writes;
		// without an exact preview there is no diff to approve.
		return nil, errors.New("no preview for append")
	}
	for _, k := range contentKeys {
		v, ok := args[k]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("%q must be a string holding the whole file content", k)
		}
		return []byte(s), nil
	}
	return nil, errors.New(`missing "content": pass the complete new file content as a string`)
}

// textEdit is one search-and-replace.
type textEdit struct {
	Old, New   string
	ReplaceAll bool
}

var (
	oldKeys = []string{"old_text", "old_string", "oldText", "oldString", "search", "find", "old", "original"}
	newKeys = []string{"new_text", "new_string", "newText", "newString", "replace", "replacement", "new", "updated"}
)

// planEdit applies search-and-replace edits, each to the result of the
// previous one. Every edit must match exactly once unless it asks to
// replace all; otherwise nothing is changed and the model is told which
// edit failed and how to fix it.
func planEdit(args map[string]json.RawMessage, old []byte, exists bool) ([]byte, error) {
	if !exists {
		return nil, errors.New("the file does not exist: create it with write_file instead")
	}
	edits, err := editsOf(args)
	if err != nil {
		return nil, err
	}
	s := string(old)
	for i, e := range edits {
		if e.Old == "" {
			return nil, fmt.Errorf("edit %d has an empty old_text: give the exact text to replace", i+1)
		}
		n := strings.Count(s, e.Old)
		switch {
		case n == 0:
			return nil, fmt.Errorf("edit %d: old_text was not found; read the file again and copy the text exactly, including whitespace", i+1)
		case n > 1 && !e.ReplaceAll:
			return nil, fmt.Errorf("edit %d: old_text matches %d places; include more surrounding lines to make it unique, or set replace_all", i+1, n)
		case e.ReplaceAll:
			s = strings.ReplaceAll(s, e.Old, e.New)
		default:
			s = strings.Replace(s, e.Old, e.New, 1)
		}
	}
	return []byte(s), nil
}

func editsOf(args map[string]json.RawMessage) ([]textEdit, error) {
	if raw, ok := args["edits"]; ok {
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
			return nil, errors.New(`"edits" must be a non-empty array of {"old_text": …, "new_text": …}`)
		}
		out := make([]textEdit, 0, len(list))
		for i, m := range list {
			e, err := oneEdit(m)
			if err != nil {
				return nil, fmt.Errorf("edit %d: %w", i+1, err)
			}
			out = append(out, e)
		}
		return out, nil
	}
	e, err := oneEdit(args)
	if err != nil {
		return nil, err
	}
	return []textEdit{e}, nil
}

func oneEdit(m map[string]json.RawMessage) (textEdit, error) {
	var e textEdit
	old, okOld := firstString(m, oldKeys)
	nw, okNew := firstString(m, newKeys)
	if !okOld || !okNew {
		return e, errors.New(`pass "old_text" (the exact text to replace) and "new_text" (its replacement)`)
	}
	e.Old, e.New = old, nw
	for _, k := range []string{"replace_all", "replaceAll", "all"} {
		if v, ok := m[k]; ok {
			_ = json.Unmarshal(v, &e.ReplaceAll)
		}
	}
	return e, nil
}

// firstString is stringArg that also accepts an explicit empty string.
func firstString(m map[string]json.RawMessage, keys []string) (string, bool) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			var s string
			if json.Unmarshal(v, &s) == nil {
				return s, true
			}
		}
	}
	return "", false
}
