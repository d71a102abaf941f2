package event

import (
	"encoding/json"
	"fmt"
)

// Events of the context layer: project context, the todos skill,
// compaction and subagents. They travel through the same Sink, in the
// same order, as the loop's own events.

// ProjectFile is one project file the run's prompt includes.
type ProjectFile struct {
	Path string `json:"path"`
	// Kind is "instructions", "readme" or "manifest" (summarised).
	Kind string `json:"kind"`
	// Bytes is the file's size as read (bounded by the discovery's
	// per-file limit plus one, to tell truncation).
	Bytes     int  `json:"bytes"`
	Truncated bool `json:"truncated,omitempty"`
}

// ProjectContextLoaded lists the files the run's prompt includes, so a
// UI can show "using AGENTS.md, go.mod". Sent after run_started, only
// when some file was found.
type ProjectContextLoaded struct {
	Files []ProjectFile `json:"files"`
}

// TodoStatus is the state of one plan item.
type TodoStatus string

const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoDone       TodoStatus = "done"
)

// TodoItem is one step of the plan.
type TodoItem struct {
	Text   string     `json:"text"`
	Status TodoStatus `json:"status"`
}

// TodosUpdated carries the plan the model maintains with the todos
// skill, whole, each time it changes: a UI replaces its list.
type TodosUpdated struct {
	CallID string     `json:"call_id,omitempty"`
	Items  []TodoItem `json:"items"`
}

// ContextCompacted reports that older turns were replaced by a summary
// to fit the model's context window. Summary is the text the model now
// sees in their place, for a UI to show ("Conversation compacted").
type ContextCompacted struct {
	// Reason is "auto" (the threshold was crossed during a run) or
	// "host" (Executor.Compact).
	Reason       string `json:"reason"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	// ContextLength and Threshold are what the decision used.
	ContextLength int `json:"context_length,omitempty"`
	// Summarized is how many messages the summary replaced; Kept how
	// many stayed verbatim (the task and the recent turns).
	Summarized int    `json:"summarized"`
	Kept       int    `json:"kept"`
	Summary    string `json:"summary"`
	// Fallback is set when the model could not summarise and a
	// mechanical digest was used instead.
	Fallback bool `json:"fallback,omitempty"`
}

// SubagentEvent is an event of a subagent's run, nested under the
// parent's tool action that started it (ParentCallID). A UI shows it
// inside that action; its JSON form nests the child event whole:
//
//	{"type":"subagent_event","parent_call_id":"call_1_0","depth":1,"event":{"type":"tool_action",…}}
type SubagentEvent struct {
	ParentCallID string
	Depth        int
	Event        Event
}

func (ProjectContextLoaded) Type() string { return "project_context" }
func (TodosUpdated) Type() string         { return "todos_updated" }
func (ContextCompacted) Type() string     { return "context_compacted" }
func (SubagentEvent) Type() string        { return "subagent_event" }

// MarshalJSON nests the child event in its own Marshal form.
func (e SubagentEvent) MarshalJSON() ([]byte, error) {
	if e.Event == nil {
		return nil, fmt.Errorf("event: subagent_event without an event")
	}
	inner, err := Marshal(e.Event)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		ParentCallID string          `json:"parent_call_id"`
		Depth        int             `json:"depth"`
		Event        json.RawMessage `json:"event"`
	}{e.ParentCallID, e.Depth, inner})
}

// UnmarshalJSON decodes the child event into its own type.
func (e *SubagentEvent) UnmarshalJSON(data []byte) error {
	var raw struct {
		ParentCallID string          `json:"parent_call_id"`
		Depth        int             `json:"depth"`
		Event        json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	inner, err := Unmarshal(raw.Event)
	if err != nil {
		return err
	}
	e.ParentCallID, e.Depth, e.Event = raw.ParentCallID, raw.Depth, inner
	return nil
}
