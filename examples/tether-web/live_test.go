package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveOutputPersisted: a running command's output reaches the page
// as the agent's tool_progress events, naming the call they belong to;
// they are stored with the session, so a resumed session replays them,
// and the server adds no unstored output events of its own.
func TestLiveOutputPersisted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tether.db")
	script := `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo live-line-1; echo live-line-2"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	withDB := func(o *options) { o.db = db }
	// progress collects the output of tool_progress events by call id and
	// fails on the server's own tool_output events.
	progress := func(ts *testServer, session string) (map[string]string, string) {
		out, callID := map[string]string{}, ""
		ts.events(t, session, func(ev map[string]any) bool {
			switch ev["type"] {
			case "tool_output":
				t.Errorf("unstored tool_output event: %v", ev)
			case "tool_progress":
				id, _ := ev["call_id"].(string)
				s, _ := ev["output"].(string)
				out[id] += s
			case "tool_action":
				callID, _ = ev["call_id"].(string)
			}
			return ev["type"] == "run_finished"
		})
		return out, callID
	}
	ts := startServer(t, script, nil, withDB)
	session := ts.newSession(t)
	ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "print two lines"})
	live, callID := progress(ts, session)
	if callID == "" || !strings.Contains(live[callID], "live-line-1") || !strings.Contains(live[callID], "live-line-2") {
		t.Fatalf("live output by call %v; want both lines under the command's call %q", live, callID)
	}
	ts.stopRuns()
	ts.close()

	ts2 := startServer(t, script, nil, withDB, func(o *options) { o.workspace = ts.dir })
	replayed, _ := progress(ts2, session)
	if replayed[callID] != live[callID] {
		t.Errorf("replayed live output %q, want %q", replayed[callID], live[callID])
	}
}
