package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// Authentication is asked for only while the backend is not ready:
// sessions are refused with ACP's auth_required until authenticate works.
func TestAuthRequiredUntilAuthenticated(t *testing.T) {
	var ready atomic.Bool
	h := newHarness(t, envScript, 0, func(c *Config) {
		c.Auth = &Auth{
			Methods: []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{Id: "key", Name: "API key"}}},
			Ready: func() error {
				if !ready.Load() {
					return errors.New("no API key")
				}
				return nil
			},
			Authenticate: func(_ context.Context, id string) error {
				if id != "key" {
					return fmt.Errorf("unknown method %q", id)
				}
				ready.Store(true)
				return nil
			},
		}
	})
	init := h.call(1, "initialize", map[string]any{"protocolVersion": 1})
	if !strings.Contains(fmt.Sprint(init["result"]), "key") {
		t.Errorf("initialize does not advertise the auth method: %v", init)
	}
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, h.dir))
	m, _ := h.waitFor("session/new's answer", idIs("2"))
	if got := describe(m); got != "error -32000" {
		t.Fatalf("session/new before authenticate: %s, want error -32000 (%v)", got, m)
	}
	h.send(`{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"methodId":"other"}}`)
	if m, _ := h.waitFor("authenticate's answer", idIs("3")); describe(m) != "error -32000" {
		t.Errorf("an unknown method: %v", m)
	}
	h.call(4, "authenticate", map[string]any{"methodId": "key"})
	h.call(5, "session/new", map[string]any{"cwd": h.dir, "mcpServers": []any{}})
}

// Without Config.Auth, initialize offers no method and authenticate is
// refused with a reason.
func TestNoAuthWhenNotNeeded(t *testing.T) {
	h := newHarness(t, envScript, 0)
	init := h.call(1, "initialize", map[string]any{"protocolVersion": 1})
	if got := fmt.Sprint(init["result"].(map[string]any)["authMethods"]); got != "[]" {
		t.Errorf("authMethods = %s, want []", got)
	}
	h.send(`{"jsonrpc":"2.0","id":2,"method":"authenticate","params":{"methodId":"x"}}`)
	if m, _ := h.waitFor("authenticate's answer", idIs("2")); describe(m) != "error -32602" {
		t.Errorf("authenticate without methods: %v", m)
	}
}

// The mode the editor sets applies to the next turn: in plan mode the
// write is not run.
func TestSetModeAppliesToTheNextTurn(t *testing.T) {
	h := newHarness(t, envScript, 0)
	sid := h.session()
	h.call(2, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "plan"})
	prompt(h, 3, sid, "configure")
	m, seen := h.waitFor("the prompt's answer", idIs("3"))
	if got := describe(m); got != "stop end_turn" {
		t.Fatalf("prompt: %s (%v)", got, m)
	}
	for _, s := range seen {
		if isPermission(s) {
			t.Errorf("plan mode asked to write: %v", s)
		}
	}
}

// A closed session is gone: prompting it is an error naming what to do.
func TestCloseSession(t *testing.T) {
	h := newHarness(t, envScript, 0)
	sid := h.session()
	h.call(2, "session/close", map[string]any{"sessionId": sid})
	prompt(h, 3, sid, "hello")
	m, _ := h.waitFor("the prompt's answer", idIs("3"))
	if got := describe(m); got != "error -32602" {
		t.Errorf("prompt after close: %s (%v)", got, m)
	}
	// It is still in the store: session/list has it, session/load reopens it.
	l := h.call(4, "session/list", map[string]any{"cwd": h.dir})
	if !strings.Contains(fmt.Sprint(l["result"]), sid) {
		t.Errorf("session/list after close: %v", l)
	}
	h.call(5, "session/load", map[string]any{"sessionId": sid, "cwd": h.dir, "mcpServers": []any{}})
}

// The slash commands: /compact on a short conversation says there is
// nothing to compact, /undo with no change says so, /review runs
// read-only (the write in the script is not offered, so nothing asks).
func TestSlashCommands(t *testing.T) {
	h := newHarness(t, envScript, 0)
	sid := h.session()
	for i, c := range []struct{ text, want string }{
		{"/compact", "Nothing to compact"},
		{"/undo", "Nothing to undo"},
	} {
		prompt(h, 10+i, sid, c.text)
		m, seen := h.waitFor("the command's answer", idIs(fmt.Sprint(10+i)))
		if got := describe(m); got != "stop end_turn" {
			t.Errorf("%s: %s (%v)", c.text, got, m)
		}
		if !strings.Contains(fmt.Sprint(seen), c.want) {
			t.Errorf("%s: no message saying %q in %v", c.text, c.want, seen)
		}
	}
	prompt(h, 20, sid, "/review the config")
	m, seen := h.waitFor("the review's answer", idIs("20"))
	if got := describe(m); got != "stop end_turn" {
		t.Errorf("/review: %s (%v)", got, m)
	}
	for _, s := range seen {
		if isPermission(s) {
			t.Errorf("/review asked to act: %v", s)
		}
	}
}

// session/resume reopens a session without replaying it; an unknown id
// is an error.
func TestResumeSession(t *testing.T) {
	h := newHarness(t, envScript, 0)
	sid := h.session()
	h.call(2, "session/close", map[string]any{"sessionId": sid})
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/resume","params":{"sessionId":%q,"cwd":%q}}`, sid, h.dir))
	m, seen := h.waitFor("session/resume's answer", idIs("3"))
	if got := describe(m); got != "result" {
		t.Fatalf("resume: %s (%v)", got, m)
	}
	for _, m := range seen {
		if p, ok := m["params"].(map[string]any); ok {
			if u, ok := p["update"].(map[string]any); ok && u["sessionUpdate"] != "available_commands_update" {
				t.Errorf("resume replayed %v", u)
			}
		}
	}
	h.send(`{"jsonrpc":"2.0","id":4,"method":"session/resume","params":{"sessionId":"ses_never","cwd":"` + h.dir + `"}}`)
	if m, _ := h.waitFor("the answer", idIs("4")); describe(m) != "error -32602" {
		t.Errorf("resume of an unknown session: %v", m)
	}
}

// Setup.Notices are said once, as agent text at the start of the first
// prompt, before the model's reply; the second prompt does not repeat
// them.
func TestNoticesSaidOnceInFirstTurn(t *testing.T) {
	const notice = "settings left out: permissions.allow"
	h := newHarness(t, `{"content":"First reply."}
{"content":"Second reply."}
`, 0, func(c *Config) {
		open := c.Open
		c.Open = func(ctx context.Context, env SessionEnv) (*Setup, error) {
			s, err := open(ctx, env)
			if s != nil {
				s.Notices = []string{notice}
			}
			return s, err
		}
	})
	sid := h.session()
	text := func(msgs []map[string]any) string {
		var b strings.Builder
		for _, m := range msgs {
			if m["method"] != "session/update" {
				continue
			}
			u, _ := m["params"].(map[string]any)["update"].(map[string]any)
			if u["sessionUpdate"] == "agent_message_chunk" {
				b.WriteString(u["content"].(map[string]any)["text"].(string))
			}
		}
		return b.String()
	}
	prompt(h, 1, sid, "hello")
	_, seen := h.waitFor("the first prompt's response", idIs("1"))
	if got := text(seen); !strings.HasPrefix(got, notice) || !strings.Contains(got, "First reply.") {
		t.Errorf("first turn said %q; want the notice, then the reply", got)
	}
	prompt(h, 2, sid, "again")
	_, seen = h.waitFor("the second prompt's response", idIs("2"))
	if got := text(seen); strings.Contains(got, notice) {
		t.Errorf("second turn repeated the notice: %q", got)
	}
}

// With Setup.SaveRule, "allow always" on a command names the exact rule
// and where it is saved, and choosing it saves it once.
func TestAllowAlwaysSavesTheRule(t *testing.T) {
	var saved atomic.Int32
	h := newHarness(t, `{"content":"Making.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch made.txt"}}]}
{"content":"Made."}
`, 0, func(c *Config) {
		open := c.Open
		c.Open = func(ctx context.Context, env SessionEnv) (*Setup, error) {
			s, err := open(ctx, env)
			if s != nil {
				s.SaveRule = func(command string) (string, string, func() error, bool) {
					return command, ".tether/settings.json", func() error { saved.Add(1); return nil }, true
				}
			}
			return s, err
		}
	})
	sid := h.session()
	prompt(h, 1, sid, "make it")
	req, _ := h.waitFor("a permission request", func(m map[string]any) bool { return m["method"] == "session/request_permission" })
	b, _ := json.Marshal(req["params"].(map[string]any)["options"])
	if want := `Always allow \"touch made.txt\" (saved to .tether/settings.json)`; !strings.Contains(string(b), want) {
		t.Errorf("options %s lack %s", b, want)
	}
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"outcome":{"outcome":"selected","optionId":"allow_always"}}}`, req["id"]))
	resp, _ := h.waitFor("the prompt's response", idIs("1"))
	if got := describe(resp); got != "stop end_turn" {
		t.Errorf("prompt answered %s (%v)", got, resp)
	}
	if n := saved.Load(); n != 1 {
		t.Errorf("the rule was saved %d times, want 1", n)
	}
}
