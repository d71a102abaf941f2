package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

const envScript = `{"content":"Configuring.","tool_calls":[{"name":"write_file","arguments":{"path":".env","content":"A=1\n"}}]}
{"content":"Again.","tool_calls":[{"name":"write_file","arguments":{"path":".env","content":"A=2\n"}}]}
{"content":"Done."}
`

func isPermission(m map[string]any) bool { return m["method"] == "session/request_permission" }

func prompt(h *harness, id int, sid, text string) {
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}}`, id, sid, text))
}

// A cancelled prompt withdraws its pending permission request: the turn
// answers cancelled and the file is not written.
func TestCancelWithdrawsPendingPermission(t *testing.T) {
	h := newHarness(t, envScript, 0)
	sid := h.session()
	prompt(h, 1, sid, "configure")
	req, _ := h.waitFor("a permission request", isPermission)
	b, _ := json.Marshal(req["params"])
	if !json.Valid(b) || !contains(string(b), `"type":"diff"`) || !contains(string(b), "A=1") {
		t.Errorf("the permission card does not show the change: %s", b)
	}
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`, sid))
	resp, _ := h.waitFor("the prompt's response", idIs("1"))
	if got := describe(resp); got != "stop cancelled" {
		t.Fatalf("prompt answered %s (%v), want stop cancelled", got, resp)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".env")); !os.IsNotExist(err) {
		t.Errorf(".env was written although its approval was withdrawn (stat: %v)", err)
	}
	// The client's late answer to the withdrawn request is dropped.
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"outcome":{"outcome":"cancelled"}}}`, req["id"]))
	h.call(2, "initialize", map[string]any{"protocolVersion": 1})
}

// reject_always is remembered for the session: the same action is
// refused without asking again.
func TestRejectAlwaysIsRemembered(t *testing.T) {
	h := newHarness(t, envScript, 0)
	sid := h.session()
	prompt(h, 1, sid, "configure")
	req, _ := h.waitFor("a permission request", isPermission)
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"outcome":{"outcome":"selected","optionId":"reject_always"}}}`, req["id"]))
	resp, seen := h.waitFor("the prompt's response", idIs("1"))
	if got := describe(resp); got != "stop end_turn" {
		t.Fatalf("prompt answered %s, want stop end_turn", got)
	}
	failed := 0
	for _, m := range seen {
		if isPermission(m) {
			t.Errorf("asked again after reject_always: %v", m)
		}
		if p, ok := m["params"].(map[string]any); ok {
			if u, ok := p["update"].(map[string]any); ok && u["status"] == "failed" {
				failed++
			}
		}
	}
	if failed != 2 {
		t.Errorf("%d tool calls reported failed, want both writes", failed)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".env")); !os.IsNotExist(err) {
		t.Errorf(".env was written although rejected (stat: %v)", err)
	}
}

// A critical action is never offered "allow always".
func TestCriticalNeverAllowAlways(t *testing.T) {
	for _, sev := range []safety.Severity{safety.SeverityMedium, safety.SeverityHigh, safety.SeverityCritical} {
		req := approval.Request{Kind: approval.KindCommand, Command: "rm -rf /", ToolName: "run_terminal_command", Severity: sev}
		always := false
		for _, o := range permissionOptions(req, "") {
			always = always || o.Kind == sdk.PermissionOptionKindAllowAlways
		}
		if want := sev < safety.SeverityCritical; always != want {
			t.Errorf("severity %v: allow_always offered = %v, want %v", sev, always, want)
		}
	}
}

func TestEffectsKind(t *testing.T) {
	ro := tools.Annotations{ReadOnly: true}
	tests := []struct {
		name string
		e    tools.Effects
		args string
		want sdk.ToolKind
	}{
		{"command", tools.Effects{Command: "go test"}, `{}`, sdk.ToolKindExecute},
		{"read a file", tools.Effects{Annotations: ro, Reads: []string{"a.go"}}, `{"path":"a.go"}`, sdk.ToolKindRead},
		{"search", tools.Effects{Annotations: ro, Reads: []string{"."}}, `{"pattern":"TODO"}`, sdk.ToolKindSearch},
		{"web page", tools.Effects{Annotations: tools.Annotations{ReadOnly: true, OpenWorld: true}, URL: "https://go.dev"}, `{}`, sdk.ToolKindFetch},
		{"edit", tools.Effects{Writes: []string{"a.go"}, Changes: []tools.FileChange{{Path: "a.go", After: []byte("x")}}}, `{}`, sdk.ToolKindEdit},
		{"delete", tools.Effects{Writes: []string{"a.go"}, Changes: []tools.FileChange{{Path: "a.go", Remove: true}}}, `{}`, sdk.ToolKindDelete},
		{"rename", tools.Effects{Writes: []string{"a.go", "b.go"}, Changes: []tools.FileChange{{Path: "a.go", Remove: true}, {Path: "b.go", After: []byte("x")}}}, `{}`, sdk.ToolKindMove},
		{"rename, no contents", tools.Effects{Writes: []string{"a.go", "b.go"}}, `{}`, sdk.ToolKindMove},
		{"plan", tools.Effects{Annotations: ro}, `{"todos":[]}`, sdk.ToolKindThink},
		{"opaque", tools.Effects{}, `{}`, sdk.ToolKindOther},
	}
	for _, tt := range tests {
		if got := effectsKind(tt.e, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("%s: kind %q, want %q", tt.name, got, tt.want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// An unanswered permission request is rejected after the approval
// timeout, and the turn goes on.
func TestPermissionTimeout(t *testing.T) {
	h := newHarness(t, envScript, 0, func(c *Config) { c.ApprovalTimeout = 200 * time.Millisecond })
	sid := h.session()
	prompt(h, 1, sid, "configure")
	m, seen := h.waitFor("the prompt's response", idIs("1"))
	if got := describe(m); got != "stop end_turn" {
		t.Fatalf("prompt: %s (%v)", got, m)
	}
	asked := 0
	for _, s := range seen {
		if isPermission(s) {
			asked++
		}
	}
	if asked != 2 {
		t.Errorf("%d permission requests, want 2 (one per write, both timed out)", asked)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".env")); !os.IsNotExist(err) {
		t.Errorf(".env was written without an answer (stat: %v)", err)
	}
}
