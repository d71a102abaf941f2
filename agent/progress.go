package agent

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/tetherdev/tether/agent/event"
)

// Progress group titles: what a UI shows above a batch of tool calls
// (event.ProgressGroupStarted.Title).
const (
	groupEditing    = "Editing files"
	groupCommands   = "Running commands"
	groupSearching  = "Searching codebase"
	groupAnalyzing  = "Analyzing code"
	groupInspecting = "Inspecting file structure"
	groupReading    = "Reading files"
	groupTools      = "Running tools"
)

var (
	analyzeTools = map[string]bool{"find_definition": true, "find_references": true, "find_implementations": true,
		"get_hover_info": true, "get_call_hierarchy": true, "get_type_hierarchy": true, "get_diagnostics": true}
	searchTools  = map[string]bool{"search_workspace": true, "find_symbol": true}
	inspectTools = map[string]bool{"get_document_symbols": true, "list_files": true}
	readTools    = map[string]bool{"read_file": true}
)

// groupTitle names a batch by its most consequential kind of call:
// edits (calls that declare file writes), then commands, then searches,
// analysis, structure, reads. The last four are presentation only, by the
// built-in tools' names.
func groupTitle(rs []routed) string {
	has := func(pred func(routed) bool) bool {
		for _, r := range rs {
			if pred(r) {
				return true
			}
		}
		return false
	}
	in := func(m map[string]bool) func(routed) bool { return func(r routed) bool { return m[r.canonical] } }
	switch {
	case has(func(r routed) bool { return r.tc != nil && len(r.tc.Effects.Writes) > 0 }):
		return groupEditing
	case has(func(r routed) bool { return r.tc != nil && r.tc.Effects.Command != "" }):
		return groupCommands
	case has(in(searchTools)):
		return groupSearching
	case has(in(analyzeTools)):
		return groupAnalyzing
	case has(in(inspectTools)):
		return groupInspecting
	case has(in(readTools)):
		return groupReading
	}
	return groupTools
}

// titleForm is the grammatical form of an action title.
type titleForm int

const (
	formRunning titleForm = iota // "Reading main.go"
	formDone                     // "Read main.go"
	formBase                     // "Read main.go" as an order: "Write .env (denied)"
)

// actionTitles returns the running title, the final title for status
// (success: "Wrote a.go"; otherwise "Write a.go (denied)") and the path
// the call is about: the first it declares writing, else reading. tc is
// nil for a call that could not be prepared.
func actionTitles(tc *ToolCall, name string) (running string, final func(event.ActionStatus) string, path string) {
	var args json.RawMessage
	if tc != nil {
		args = tc.Args
		switch e := tc.Effects; {
		case len(e.Writes) > 0:
			path = e.Writes[0]
		case len(e.Reads) > 0:
			path = e.Reads[0]
		}
	}
	running = titleOf(name, args, path, formRunning)
	done := titleOf(name, args, path, formDone)
	base := titleOf(name, args, path, formBase)
	return running, func(s event.ActionStatus) string {
		if s == event.StatusSuccess {
			return done
		}
		return base + " (" + string(s) + ")"
	}, path
}

// titleOf titles a prepared call: its arguments carry canonical names.
func titleOf(name string, args json.RawMessage, p string, form titleForm) string {
	str := func(key string) string { return firstStringArg(args, key) }
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
		return verb("Reading ", "Read ", "Read ") + base
	case "write_file", "create_file":
		return verb("Writing ", "Wrote ", "Write ") + base
	case "edit_file":
		return verb("Editing ", "Edited ", "Edit ") + base
	case "run_terminal_command":
		return verb("Running ", "Ran ", "Run ") + "`" + excerpt(firstLine(str("command")), 80) + "`"
	case "search_workspace":
		return verb("Searching for ", "Searched for ", "Search for ") + "“" + excerpt(str("query"), 60) + "”"
	case "list_files":
		if p == "" {
			p = "."
		}
		return verb("Listing ", "Listed ", "List ") + p
	}
	t := verb("Running ", "Ran ", "Run ") + name
	if p != "" {
		t += " on " + base
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
