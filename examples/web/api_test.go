package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestApprovalsOverHTTP answers cards as the page does: the first
// command is allowed at once (possibly before the Manager registered
// it), a critical one cannot be granted for the session and is refused
// with a message the model receives.
func TestApprovalsOverHTTP(t *testing.T) {
	script := `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo hi > hi.txt"}}]}
{"content":"Cleaning.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"rm -rf ~"}}]}
{"content":"Keying.","tool_calls":[{"name":"write_file","arguments":{"path":".env","content":"API_KEY=new\n"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	ts := startServer(t, script, map[string]string{".env": "API_KEY=old\n"})
	session := ts.newSession(t)
	if code, body := ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "go"}); code != http.StatusAccepted {
		t.Fatalf("prompt: %d %v", code, body)
	}
	if code, _ := ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "again"}); code != http.StatusConflict {
		t.Errorf("second prompt while running: %d, want 409", code)
	}
	var resolved []string
	ts.events(t, session, func(ev map[string]any) bool {
		switch ev["type"] {
		case "approval_requested":
			id := ev["id"].(string)
			d := ev["display"].(map[string]any)
			if d["kind"] == "file_edit" {
				// The card shows the exact change.
				if diff, _ := d["diff"].(string); !strings.Contains(diff, "-API_KEY=old") || !strings.Contains(diff, "+API_KEY=new") {
					t.Errorf("file edit card diff %q", diff)
				}
				ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "deny"})
				return false
			}
			if d["severity"] != "critical" {
				if code, body := ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "allow_once"}); code != http.StatusOK {
					t.Errorf("allow: %d %v", code, body)
				}
				return false
			}
			if code, body := ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "allow_session"}); code != http.StatusBadRequest {
				t.Errorf("allow_session on a critical command: %d %v, want 400", code, body)
			}
			if code, body := ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "deny", "message": "never touch home"}); code != http.StatusOK {
				t.Errorf("deny: %d %v", code, body)
			}
			if code, _ := ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "allow_once"}); code != http.StatusConflict {
				t.Errorf("second answer: %d, want 409 (first answer wins)", code)
			}
		case "approval_resolved":
			resolved = append(resolved, ev["choice"].(string))
		case "run_finished":
			return true
		}
		return false
	})
	if strings.Join(resolved, ",") != "allow_once,deny,deny" {
		t.Errorf("resolved %v, want allow_once, deny, deny", resolved)
	}
	if b, _ := os.ReadFile(filepath.Join(ts.dir, ".env")); string(b) != "API_KEY=old\n" {
		t.Errorf(".env = %q after a refused edit", b)
	}
	if b, err := os.ReadFile(filepath.Join(ts.dir, "hi.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("hi.txt = %q, %v", b, err)
	}
	if code, _ := ts.post(t, "/api/approve", map[string]string{"id": "req_nope", "choice": "deny"}); code != http.StatusNotFound {
		t.Errorf("unknown id: %d, want 404", code)
	}
	if code, _ := ts.post(t, "/api/approve", map[string]string{"id": "x", "choice": "always"}); code != http.StatusBadRequest {
		t.Errorf("bad choice: %d, want 400", code)
	}
}

// TestApprovalTimeoutDenies leaves a card unanswered.
func TestApprovalTimeoutDenies(t *testing.T) {
	script := `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo hi > hi.txt"}}]}
{"content":"It was refused. [TASK_COMPLETE]"}
`
	ts := startServer(t, script, nil, func(o *options) { o.approvalTimeout = 100 * time.Millisecond })
	session := ts.newSession(t)
	ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "go"})
	var choice string
	ts.events(t, session, func(ev map[string]any) bool {
		if ev["type"] == "approval_resolved" {
			choice = ev["choice"].(string)
		}
		return ev["type"] == "run_finished"
	})
	if choice != "deny" {
		t.Errorf("unanswered card resolved as %q, want deny", choice)
	}
	if _, err := os.Stat(filepath.Join(ts.dir, "hi.txt")); err == nil {
		t.Error("the command ran without an answer")
	}
}

// TestCheckpointRequestsAreChecked sends bad decisions.
func TestCheckpointRequestsAreChecked(t *testing.T) {
	script := `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"new\n"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	ts := startServer(t, script, map[string]string{"a.txt": "old\n"})
	session := ts.newSession(t)
	other := ts.newSession(t)
	cp := ts.runTurn(t, session, "rewrite a.txt")
	if cp == "" {
		t.Fatal("the run made no checkpoint")
	}
	tests := []struct {
		name string
		req  map[string]any
		want int
	}{
		{"unknown action", map[string]any{"session": session, "checkpoint": cp, "action": "drop"}, http.StatusBadRequest},
		{"file action without path", map[string]any{"session": session, "checkpoint": cp, "action": "undo_file"}, http.StatusBadRequest},
		{"hunk action without hunk", map[string]any{"session": session, "checkpoint": cp, "action": "reject_hunk", "path": "a.txt"}, http.StatusBadRequest},
		{"stale hunk", map[string]any{"session": session, "checkpoint": cp, "action": "reject_hunk", "path": "a.txt", "hunk": "0000"}, http.StatusNotFound},
		{"unknown checkpoint", map[string]any{"session": session, "checkpoint": "cp_nope", "action": "undo"}, http.StatusNotFound},
		{"another session's checkpoint", map[string]any{"session": other, "checkpoint": cp, "action": "undo"}, http.StatusNotFound},
		{"unknown session", map[string]any{"session": "ses_nope", "checkpoint": cp, "action": "undo"}, http.StatusNotFound},
	}
	for _, tt := range tests {
		if code, body := ts.post(t, "/api/checkpoint", tt.req); code != tt.want {
			t.Errorf("%s: %d %v, want %d", tt.name, code, body, tt.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ts.dir, "a.txt")); string(b) != "new\n" {
		t.Errorf("a bad request changed a.txt: %q", b)
	}
	// Someone edits the file after the agent: undo refuses, then forces.
	if err := os.WriteFile(filepath.Join(ts.dir, "a.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, body := ts.post(t, "/api/checkpoint", map[string]any{"session": session, "checkpoint": cp, "action": "undo"}); code != http.StatusConflict || body["conflict"] == nil {
		t.Errorf("undo over a foreign edit: %d %v, want 409 with the conflict", code, body)
	}
	if code, body := ts.post(t, "/api/checkpoint", map[string]any{"session": session, "checkpoint": cp, "action": "undo", "force": true}); code != http.StatusOK {
		t.Errorf("forced undo: %d %v", code, body)
	}
	if b, _ := os.ReadFile(filepath.Join(ts.dir, "a.txt")); string(b) != "old\n" {
		t.Errorf("a.txt after forced undo: %q, want old", b)
	}
}

// TestSessionsResumeAfterRestart persists a session in SQLite, restarts
// the server on the same file and replays the session's events.
func TestSessionsResumeAfterRestart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tether.db")
	script := `{"capabilities":{"tools":true}}
{"content":"First answer. [TASK_COMPLETE]"}
`
	withDB := func(o *options) { o.db = db }
	ts := startServer(t, script, nil, withDB)
	session := ts.newSession(t)
	ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "hello"})
	ts.events(t, session, func(ev map[string]any) bool { return ev["type"] == "run_finished" })
	ts.stopRuns()
	ts.close()

	ts2 := startServer(t, script, nil, withDB, func(o *options) { o.workspace = ts.dir })
	req, _ := http.NewRequest(http.MethodGet, ts2.url+"/api/sessions", nil)
	resp, err := ts2.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	_, _ = list.ReadFrom(resp.Body)
	resp.Body.Close()
	if !strings.Contains(list.String(), session) || !strings.Contains(list.String(), `"title":"hello"`) {
		t.Fatalf("sessions after restart: %s, want %s titled by its first prompt", list.String(), session)
	}
	var text strings.Builder
	ts2.events(t, session, func(ev map[string]any) bool {
		if ev["type"] == "text_delta" {
			text.WriteString(ev["text"].(string))
		}
		return ev["type"] == "run_finished"
	})
	if !strings.Contains(text.String(), "First answer.") {
		t.Errorf("replayed text %q", text.String())
	}
}

// TestAlwaysAllowOverHTTP: "Always allow" on a command's card saves the
// exact command to .tether/settings.json; a session opened afterwards
// runs it without a card. A pipeline cannot be saved as one rule.
func TestAlwaysAllowOverHTTP(t *testing.T) {
	script := `{"capabilities":{"tools":true}}
{"content":"Listing.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"ls -la | sort"}}]}
{"content":"Stamping.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch stamp.txt"}}]}
{"content":"Done. [TASK_COMPLETE]"}
{"content":"Again.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch stamp.txt"}}]}
{"content":"Done again. [TASK_COMPLETE]"}
`
	ts := startServer(t, script, nil)
	first := ts.newSession(t)
	if code, body := ts.post(t, "/api/prompt", map[string]string{"session": first, "text": "go"}); code != http.StatusAccepted {
		t.Fatalf("prompt: %d %v", code, body)
	}
	ts.events(t, first, func(ev map[string]any) bool {
		switch ev["type"] {
		case "approval_requested":
			id := ev["id"].(string)
			subject := ev["display"].(map[string]any)["subject"]
			if subject == "ls -la | sort" {
				if code, body := ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "allow_always"}); code != http.StatusBadRequest {
					t.Errorf("allow_always on a pipeline: %d %v, want 400", code, body)
				}
				ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "deny"})
				return false
			}
			if code, body := ts.post(t, "/api/approve", map[string]string{"id": id, "choice": "allow_always"}); code != http.StatusOK {
				t.Errorf("allow_always: %d %v", code, body)
			}
		case "run_finished":
			return true
		}
		return false
	})
	saved, err := os.ReadFile(filepath.Join(ts.dir, ".tether", "settings.json"))
	if err != nil || !strings.Contains(string(saved), `"touch stamp.txt"`) || strings.Contains(string(saved), "sort") {
		t.Fatalf(".tether/settings.json = %s, %v", saved, err)
	}
	os.Remove(filepath.Join(ts.dir, "stamp.txt"))
	second := ts.newSession(t)
	if code, body := ts.post(t, "/api/prompt", map[string]string{"session": second, "text": "again"}); code != http.StatusAccepted {
		t.Fatalf("prompt: %d %v", code, body)
	}
	ts.events(t, second, func(ev map[string]any) bool {
		if ev["type"] == "approval_requested" {
			t.Errorf("the saved rule did not apply to a new session: %v", ev["display"])
			ts.post(t, "/api/approve", map[string]string{"id": ev["id"].(string), "choice": "deny"})
		}
		return ev["type"] == "run_finished"
	})
	if _, err := os.Stat(filepath.Join(ts.dir, "stamp.txt")); err != nil {
		t.Errorf("the command did not run in the new session: %v", err)
	}
}
