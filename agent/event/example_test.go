package event_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/tetherdev/tether/agent/event"
)

// A UI that stores a run as JSON lines and replays it later sees the
// same types it saw live.
func ExampleJSONLines() {
	var stored strings.Builder
	sink := event.JSONLines(&stored)
	ctx := context.Background()
	for _, e := range []event.Event{
		event.RunStarted{RunID: "run_1", Mode: "agent", Prompt: "fix the test"},
		event.TextDelta{Text: "Looking at the test."},
		event.ToolAction{CallID: "c1", Tool: "read_file", Status: event.StatusSuccess, Title: "Read main_test.go"},
		event.RunFinished{StopReason: event.StopCompleted, Iterations: 2},
	} {
		if err := sink.Emit(ctx, e); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Print(stored.String())

	lines := bufio.NewScanner(strings.NewReader(stored.String()))
	for lines.Scan() {
		e, err := event.Unmarshal(lines.Bytes())
		if err != nil {
			log.Fatal(err)
		}
		switch e := e.(type) {
		case event.ToolAction:
			fmt.Printf("replayed: %s (%s)\n", e.Title, e.Status)
		case event.RunFinished:
			fmt.Printf("replayed: run %s\n", e.StopReason)
		}
	}
	// Output:
	// {"type":"run_started","run_id":"run_1","mode":"agent","tool_calling":"","prompt":"fix the test","tools":null}
	// {"type":"text_delta","text":"Looking at the test."}
	// {"type":"tool_action","call_id":"c1","tool":"read_file","status":"success","title":"Read main_test.go"}
	// {"type":"run_finished","stop_reason":"completed","iterations":2,"usage":{"prompt_tokens":0,"completion_tokens":0}}
	// replayed: Read main_test.go (success)
	// replayed: run completed
}
