package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/settings"
)

// TestSettingsOverTheProtocol drives the agent as an editor would: the
// project's modes are the session's modes in session/new's answer, the
// settings' start mode is current, and what the untrusted project set and
// was left out is agent text at the start of the first turn.
func TestSettingsOverTheProtocol(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"Hello from the model."}`+"\n"), 0o644)
	cwd := t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".tether"), 0o755)
	os.WriteFile(filepath.Join(cwd, settings.ProjectFile), []byte(`{
		// a project mode, started in
		"mode": "ask",
		"modes": {"ask": {"prompt": "Answer only.", "tools": ["read_file"], "readOnly": true}},
		"permissions": {"allow": ["make"]},
	}`), 0o644)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"-model", "script:" + script, "-db", "memory", "-sandbox", "off", "-log-level", "error"}, inR, outW, io.Discard)
		outW.Close()
		done <- code
	}()
	msgs := make(chan map[string]any, 256)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				msgs <- m
			}
		}
		close(msgs)
	}()
	send := func(id int, method string, params any) {
		p, _ := json.Marshal(params)
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, p)
	}
	// await returns the response to id and the messages before it.
	await := func(id int) (map[string]any, []map[string]any) {
		var seen []map[string]any
		deadline := time.After(60 * time.Second)
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatalf("the agent ended while waiting for response %d; saw %v", id, seen)
				}
				if _, isReq := m["method"]; !isReq && fmt.Sprint(m["id"]) == fmt.Sprint(id) {
					if m["error"] != nil {
						t.Fatalf("response %d: %v", id, m["error"])
					}
					return m, seen
				}
				seen = append(seen, m)
			case <-deadline:
				t.Fatalf("no response %d within 60s", id)
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": 1})
	await(1)
	send(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	resp, _ := await(2)
	res := resp["result"].(map[string]any)
	modes, _ := json.Marshal(res["modes"])
	if !strings.Contains(string(modes), `"currentModeId":"ask"`) || !strings.Contains(string(modes), `"id":"ask"`) {
		t.Errorf("session modes %s: want the project's ask mode, current", modes)
	}
	send(3, "session/prompt", map[string]any{"sessionId": res["sessionId"], "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
	_, seen := await(3)
	var text strings.Builder
	for _, m := range seen {
		if p, ok := m["params"].(map[string]any); ok && m["method"] == "session/update" {
			if u, _ := p["update"].(map[string]any); u["sessionUpdate"] == "agent_message_chunk" {
				text.WriteString(u["content"].(map[string]any)["text"].(string))
			}
		}
	}
	if got := text.String(); !strings.Contains(got, "permissions.allow") || !strings.Contains(got, "-trust") || !strings.Contains(got, "Hello from the model.") {
		t.Errorf("first turn said %q; want the left-out settings and how to trust them, then the reply", got)
	}
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(60 * time.Second):
		t.Error("the agent did not exit within 60s of its input closing")
	}
}
