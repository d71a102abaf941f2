package agent

import (
	"encoding/json"
	"path"
	"strings"
)

// Progress group titles (seed 001, "Progress Group Titles").
const (
	GroupEditing    = "Editing files"
	GroupCommands   = "Running commands"
	GroupSearching  = "Searching codebase"
	GroupAnalyzing  = "Analyzing code"
	GroupInspecting = "Inspecting file structure"
	GroupReading    = "Reading files"
	GroupTools      = "Running tools"
)

var (
	analyzeTools = map[string]bool{"find_definition": true, "find_references": true, "find_implementations": true,
		"get_hover_info": true, "get_call_hierarchy": true, "get_type_hierarchy": true, "get_diagnostics": true}
	searchTools  = map[string]bool{"search_workspace": true, "find_symbol": true}
	inspectTools = map[string]bool{"get_document_symbols": true, "list_files": true}
	readTools    = map[string]bool{"read_file": true}
)

// groupTitle names a batch by its most consequential kind of call:
// edits, then commands, then searches, analysis, structure, reads.
func groupTitle(names []string, isEdit, isTerm func(string) bool) string {
	has := func(pred func(string) bool) bool {
		for _, n := range names {
			if pred(n) {
				return true
			}
		}
		return false
	}
	in := func(m map[string]bool) func(string) bool { return func(n string) bool { return m[n] } }
	switch {
	case has(isEdit):
		return GroupEditing
	case has(isTerm):
		return GroupCommands
	case has(in(searchTools)):
		return GroupSearching
	case has(in(analyzeTools)):
		return GroupAnalyzing
	case has(in(inspectTools)):
		return GroupInspecting
	case has(in(readTools)):
		return GroupReading
	}
	return GroupTools
}

// actionTitle is the one-line title of a call: "Reading main.go" while
// it runs, "Read main.go" when done. It also returns the path the call
// is about, if any.
func actionTitle(name string, args json.RawMessage, running bool) (string, string) {
	return titleOf(name, args, running)
}

// actionTitles returns both titles and the path.
func actionTitles(name string, args json.RawMessage) (running, done, path string) {
	running, path = titleOf(name, args, true)
	done, _ = titleOf(name, args, false)
	return running, done, path
}

func titleOf(name string, args json.RawMessage, running bool) (string, string) {
	str := func(keys ...string) string { return firstStringArg(args, keys...) }
	p := str(pathKeys...)
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	verb := func(ing, ed string) string {
		if running {
			return ing
		}
		return ed
	}
	switch name {
	case "read_file":
		return verb("Reading ", "Read ") + base, p
	case "write_file", "create_file":
		return verb("Writing ", "Wrote ") + base, p
	case "edit_file":
		return verb("Editing ", "Edited ") + base, p
	case "run_terminal_command":
		return verb("Running ", "Ran ") + "`" + excerpt(firstLine(str("command", "cmd", "script")), 80) + "`", ""
	case "search_workspace":
		return verb("Searching for ", "Searched for ") + "“" + excerpt(str("query", "pattern", "search"), 60) + "”", p
	case "list_files":
		if p == "" {
			p = "."
		}
		return verb("Listing ", "Listed ") + p, p
	}
	t := verb("Running ", "Ran ") + name
	if p != "" {
		t += " on " + base
	}
	return t, p
}

// failedTitle marks a title whose call did not succeed.
func failedTitle(t string, s ActionStatus) string {
	switch s {
	case StatusDenied:
		return t + " (denied)"
	case StatusSkipped:
		return t + " (skipped)"
	case StatusError:
		return t + " (failed)"
	}
	return t
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
