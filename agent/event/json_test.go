package event

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

func TestMarshalForm(t *testing.T) {
	tests := []struct {
		e    Event
		want string
	}{
		{TextDelta{Text: "hi"}, `{"type":"text_delta","text":"hi"}`},
		{ThinkingCollapsed{DurationMS: 8000}, `{"type":"thinking_collapsed","duration_ms":8000}`},
		{Notice{Kind: NoticeTruncated, Text: "cut"}, `{"type":"notice","kind":"truncated","text":"cut"}`},
		{SubagentEvent{ParentCallID: "c1", Depth: 1, Event: TextDelta{Text: "x"}},
			`{"type":"subagent_event","parent_call_id":"c1","depth":1,"event":{"type":"text_delta","text":"x"}}`},
	}
	for _, tt := range tests {
		b, err := Marshal(tt.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("Marshal(%T) = %s, want %s", tt.e, b, tt.want)
		}
	}
}

// Every event type decodes back to itself, so a UI replaying a log sees
// the same type switches as live.
func TestRoundTripEveryType(t *testing.T) {
	events := []Event{
		RunStarted{RunID: "r", Mode: "plan", ToolCalling: "native", Prompt: "p", Tools: []string{"read_file"}},
		BranchCreated{Branch: "tether/x", Base: "main"},
		ProjectContextLoaded{Files: []ProjectFile{{Path: "AGENTS.md", Kind: "instructions", Bytes: 10}}},
		ThinkingDelta{Text: "hm"},
		ThinkingCollapsed{DurationMS: 3},
		TextDelta{Text: "t"},
		FileWriting{Tool: "write_file", Path: "a.go"},
		ToolCallStarted{Name: "read_file", Index: 1},
		ProgressGroupStarted{GroupID: "g", Title: "Reading files"},
		ProgressGroupFinished{GroupID: "g", Title: "Reading files", Status: StatusSuccess},
		ToolAction{CallID: "c", Tool: "read_file", Status: StatusDenied, Chunks: []tools.LineRange{{Start: 1, End: 2}}},
		ToolProgress{CallID: "c", Tool: "run_terminal_command", Output: "ok\n"},
		ApprovalRequested{ID: "a", CallID: "c", Display: approval.Display{Kind: "command", Subject: "go test"}},
		ApprovalResolved{ID: "a", Choice: approval.AllowOnce},
		FilesChanged{Files: []FileChange{{Path: "a.go", Kind: "modified", Added: 1}}, Added: 1, Final: true},
		FinalMessage{Text: "done"},
		Notice{Kind: NoticePivotGuidance, Text: "try another way"},
		TodosUpdated{Items: []TodoItem{{Text: "a", Status: TodoDone}}},
		ContextCompacted{Reason: "auto", Summary: "s"},
		ContextWindow{ContextLength: 32768, MaxContextLength: 40960, Source: "default", PromptTokens: 2100},
		SubagentEvent{ParentCallID: "c", Depth: 1, Event: FinalMessage{Text: "child"}},
		RunFinished{StopReason: StopCompleted, Iterations: 2, Usage: llm.Usage{PromptTokens: 3}},
	}
	if len(events) != len(eventTypes) {
		t.Errorf("the test covers %d types, the decoder knows %d", len(events), len(eventTypes))
	}
	for _, e := range events {
		b, err := Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Errorf("round trip of %T:\n got %#v\nwant %#v", e, back, e)
		}
	}
}

func TestUnmarshalUnknownType(t *testing.T) {
	if _, err := Unmarshal([]byte(`{"type":"nope"}`)); !errors.Is(err, ErrUnknownType) {
		t.Errorf("Unmarshal(nope) = %v, want ErrUnknownType", err)
	}
}

func TestJSONLines(t *testing.T) {
	var sb strings.Builder
	sink := JSONLines(&sb)
	if err := sink.Emit(context.Background(), RunFinished{StopReason: StopCompleted, Iterations: 2}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(sb.String()), &m); err != nil {
		t.Fatal(err)
	}
	if m["type"] != "run_finished" || m["stop_reason"] != "completed" || !strings.HasSuffix(sb.String(), "\n") {
		t.Errorf("JSONLines wrote %q", sb.String())
	}
}

// A UI imports the events without the loop: package event links neither
// the agent, nor the tool-call parser, nor checkpoints, nor any store.
func TestEventLinksNoLoop(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/tetherdev/tether/agent/event").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/tetherdev/tether/agent", "github.com/tetherdev/tether/toolcall",
			"github.com/tetherdev/tether/checkpoint", "modernc.org/sqlite", "github.com/jackc/pgx"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") && dep != "github.com/tetherdev/tether/agent/event" {
				t.Errorf("package event imports %s", dep)
			}
		}
	}
}
