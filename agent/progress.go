package agent

import (
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
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

// groupTitle names a batch by its most consequential kind of call:
// edits (calls that declare file writes), then commands, then, by the
// kind each tool gives its calls (tools.Title.Kind), searches, analysis,
// structure, reads.
func groupTitle(rs []routed) string {
	has := func(pred func(routed) bool) bool {
		for _, r := range rs {
			if pred(r) {
				return true
			}
		}
		return false
	}
	kind := func(k tools.ActionKind) func(routed) bool {
		return func(r routed) bool { return r.tc != nil && r.tc.Title.Kind == k }
	}
	switch {
	case has(func(r routed) bool { return r.tc != nil && len(r.tc.Effects.Writes) > 0 }):
		return groupEditing
	case has(func(r routed) bool { return r.tc != nil && r.tc.Effects.Command != "" }):
		return groupCommands
	case has(kind(tools.KindSearch)):
		return groupSearching
	case has(kind(tools.KindAnalyze)):
		return groupAnalyzing
	case has(kind(tools.KindInspect)):
		return groupInspecting
	case has(kind(tools.KindRead)):
		return groupReading
	}
	return groupTools
}

// actionTitles returns the running title, the final title for status
// (success: "Wrote a.go"; otherwise "Write a.go (denied)") and the path
// the call is about: the first it declares writing, else reading. The
// words are the tool's own (ToolCall.Title). tc is nil for a call that
// could not be prepared.
func actionTitles(tc *ToolCall, name string) (running string, final func(event.ActionStatus) string, path string) {
	t := tools.DefaultTitle(name, tools.Effects{})
	if tc != nil {
		path = tools.EffectPath(tc.Effects)
		if tc.Title.Running != "" {
			t = tc.Title
		} else {
			t = tools.DefaultTitle(name, tc.Effects)
		}
	}
	return t.Running, func(s event.ActionStatus) string {
		if s == event.StatusSuccess {
			return t.Done
		}
		return t.Order + " (" + string(s) + ")"
	}, path
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
