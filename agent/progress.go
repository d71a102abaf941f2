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

// titleForm is the grammatical form of an action title.
type titleForm int

const (
	formRunning titleForm = iota // "Reading main.go"
	formDone                     // "Read main.go"
	formBase                     // "Read main.go" as an order: "Write .env (denied)"
)

// actionTitle is the one-line title of a call: "Reading main.go" while
// it runs, "Read main.go" when done. It also returns the path the call
// is about, if any.
func actionTitle(name string, args json.RawMessage, running bool) (string, string) {
	if running {
		return titleOf(name, args, formRunning)
	}
	return titleOf(name, args, formDone)
}

// actionTitles returns the running title, the final title for status
// (success: "Wrote a.go"; otherwise "Write a.go (denied)") and the path.
func actionTitles(name string, args json.RawMessage) (running string, final func(ActionStatus) string, path string) {
	running, path = titleOf(name, args, formRunning)
	done, _ := titleOf(name, args, formDone)
	base, _ := titleOf(name, args, formBase)
	return running, func(s ActionStatus) string {
		if s == StatusSuccess {
			return done
		}
		return base + " (" + string(s) + ")"
	}, path
}

func titleOf(name string, args json.RawMessage, form titleForm) (string, string) {
	str := func(keys ...string) string { return firstStringArg(args, keys...) }
	p := str(pathKeys...)
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	verb := func(ing, ed, plain string) string {
		switch form {
		case formRunning:
			return ing
		case formDone:
			return ed
		}
		return plain
	}
	switch name {
	case "read_file":
		return verb("Reading ", "Read ", "Read ") + base, p
	case "write_file", "create_file":
		return verb("Writing ", "Wrote ", "Write ") + base, p
	case "edit_file":
		return verb("Editing ", "Edited ", "Edit ") + base, p
	case "run_terminal_command":
		return verb("Running ", "Ran ", "Run ") + "`" + excerpt(firstLine(str("command", "cmd", "script")), 80) + "`", ""
	case "search_workspace":
		return verb("Searching for ", "Searched for ", "Search for ") + "“" + excerpt(str("query", "pattern", "search"), 60) + "”", p
	case "list_files":
		if p == "" {
			p = "."
		}
		return verb("Listing ", "Listed ", "List ") + p, p
	}
	t := verb("Running ", "Ran ", "Run ") + name
	if p != "" {
		t += " on " + base
	}
	return t, p
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
