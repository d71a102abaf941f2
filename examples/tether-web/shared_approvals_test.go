package main

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherdev/tether/internal/pgtest"
)

// TestApprovalAnsweredByAnotherProcess runs two web servers on one
// PostgreSQL database. A turn runs in the first; its approval cards
// appear on the second's page as they are asked, and the second answers
// them: one allowed (the command runs in the first), one refused with a
// message. A choice the card does not offer is refused there too.
func TestApprovalAnsweredByAnotherProcess(t *testing.T) {
	db := postgresURL(t, pgtest.Database(t))
	withDB := func(o *options) { o.db = db }
	script := `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo hi > hi.txt"}}]}
{"content":"Writing more.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo no > no.txt"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	a := startServer(t, script, nil, withDB)
	b := startServer(t, `{"content":"unused"}`+"\n", nil, withDB, func(o *options) { o.workspace = a.dir })

	session := a.newSession(t)
	if code, body := a.post(t, "/api/prompt", map[string]string{"session": session, "text": "write files"}); code != http.StatusAccepted {
		t.Fatalf("prompt: %d %v", code, body)
	}
	var resolved []string
	asked := 0
	b.events(t, session, func(ev map[string]any) bool {
		switch ev["type"] {
		case "approval_requested":
			id := ev["id"].(string)
			asked++
			if asked == 1 {
				if code, body := b.post(t, "/api/approve", map[string]string{"id": id, "choice": "allow_once"}); code != http.StatusOK {
					t.Errorf("allow from the other process: %d %v", code, body)
				}
				if code, _ := b.post(t, "/api/approve", map[string]string{"id": id, "choice": "deny"}); code != http.StatusConflict {
					t.Errorf("second answer from the other process: %d, want 409 (first answer wins)", code)
				}
				return false
			}
			if code, body := b.post(t, "/api/approve", map[string]string{"id": id, "choice": "deny", "message": "not that one"}); code != http.StatusOK {
				t.Errorf("deny from the other process: %d %v", code, body)
			}
		case "approval_resolved":
			resolved = append(resolved, ev["choice"].(string))
		case "run_finished":
			return true
		}
		return false
	})
	if len(resolved) != 2 || resolved[0] != "allow_once" || resolved[1] != "deny" {
		t.Errorf("resolved %v, want allow_once then deny", resolved)
	}
	if got, err := os.ReadFile(filepath.Join(a.dir, "hi.txt")); err != nil || string(got) != "hi\n" {
		t.Errorf("hi.txt = %q, %v: the allowed command did not run", got, err)
	}
	if _, err := os.Stat(filepath.Join(a.dir, "no.txt")); !os.IsNotExist(err) {
		t.Errorf("no.txt exists after a refusal (stat: %v)", err)
	}
	if code, _ := b.post(t, "/api/approve", map[string]string{"id": "req_nope", "choice": "deny"}); code != http.StatusNotFound {
		t.Errorf("unknown id on the other process: %d, want 404", code)
	}
}
