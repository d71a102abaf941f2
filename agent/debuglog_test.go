package agent

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// TestDebugRecordPerIteration: at debug level the logger gets, for each
// model call, what the model sent and what was parsed or refused with the
// reason, and for each call that did not succeed, its status and why.
func TestDebugRecordPerIteration(t *testing.T) {
	envelope := "```yips-agent\n" + `{"actions":[{"type":"tool","id":"t1","name":"delete_everything","arguments":{}},` +
		`{"type":"tool","id":"t2","name":"read_file","arguments":{"path":"../outside.txt"}}]}` + "\n```"
	script, _ := json.Marshal(map[string]string{"content": envelope})
	e := newEnv(t, string(script)+"\n"+`{"content":"Nothing more. [TASK_COMPLETE]"}`+"\n", nil)
	var buf bytes.Buffer
	cfg := e.config()
	cfg.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.ToolCalling = ToolCallingEnvelope
	if _, err := e.run(cfg, "look around"); err != nil {
		t.Fatal(err)
	}
	var responses, notDone []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		switch rec["msg"] {
		case "agent: model response":
			responses = append(responses, rec)
		case "agent: call not done":
			notDone = append(notDone, rec)
		}
	}
	if len(responses) != 2 {
		t.Fatalf("want one response record per model call (2), got %d:\n%s", len(responses), buf.String())
	}
	first := responses[0]
	if !strings.Contains(first["content"].(string), "delete_everything") || first["iteration"] != float64(1) {
		t.Errorf("first record does not carry what the model sent: %v", first)
	}
	if b, _ := json.Marshal(first["problems"]); !strings.Contains(string(b), "delete_everything") {
		t.Errorf("the dropped action is not in the record with its reason: problems = %s", b)
	}
	if b, _ := json.Marshal(first["calls"]); !strings.Contains(string(b), "read_file") {
		t.Errorf("the parsed call is not in the record: calls = %s", b)
	}
	if len(notDone) != 1 || notDone[0]["status"] != "denied" || notDone[0]["why"] == "" {
		t.Errorf("want one refused call with its reason, got %v", notDone)
	}
}
