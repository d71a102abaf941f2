package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestChangesShowReviewState: a checkpoint decided file by file stays
// open, and the changes view says how far its review has come, as the
// checkpoint tells it.
func TestChangesShowReviewState(t *testing.T) {
	script := `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"A\n"}},{"name":"write_file","arguments":{"path":"b.txt","content":"B\n"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	ts := startServer(t, script, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	session := ts.newSession(t)
	cp := ts.runTurn(t, session, "rewrite")
	review := func() (string, int) {
		t.Helper()
		resp, err := ts.client.Get(ts.url + "/api/changes?session=" + session)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Checkpoints []checkpointView `json:"checkpoints"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || len(body.Checkpoints) != 1 {
			t.Fatalf("changes: %v, %+v", err, body)
		}
		return body.Checkpoints[0].Review, len(body.Checkpoints[0].Files)
	}
	for _, step := range []struct {
		action, path string
		review       string
		files        int
	}{
		{"", "", "open", 2},
		{"undo_file", "a.txt", "partly decided (1 of 2 files)", 1},
		{"keep_file", "b.txt", "decided", 0},
	} {
		if step.action != "" {
			if code, body := ts.post(t, "/api/checkpoint", map[string]any{"session": session, "checkpoint": cp, "action": step.action, "path": step.path}); code != http.StatusOK {
				t.Fatalf("%s %s: %d %v", step.action, step.path, code, body)
			}
		}
		if got, files := review(); got != step.review || files != step.files {
			t.Errorf("after %q %s: review %q with %d files, want %q with %d", step.action, step.path, got, files, step.review, step.files)
		}
	}
}

// TestRequestsWithoutSession: a request that names no session is told
// what to send, not that session "" does not exist.
func TestRequestsWithoutSession(t *testing.T) {
	ts := startServer(t, `{"content":"unused"}`+"\n", nil)
	for _, path := range []string{"/api/prompt", "/api/checkpoint", "/api/cancel"} {
		body := map[string]any{}
		if path == "/api/prompt" {
			body["text"] = "hello"
		}
		if code, resp := ts.post(t, path, body); code != http.StatusBadRequest || !strings.Contains(resp["error"].(string), `"session" is required`) {
			t.Errorf("POST %s without a session: %d %v", path, code, resp)
		}
	}
	for _, path := range []string{"/api/changes", "/api/events"} {
		resp, err := ts.client.Get(ts.url + path)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body["error"], `"session" is required`) {
			t.Errorf("GET %s without a session: %d %v", path, resp.StatusCode, body)
		}
	}
}
