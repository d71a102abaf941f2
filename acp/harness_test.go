package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// harness drives a Server over pipes, as an editor would.
type harness struct {
	t    *testing.T
	dir  string // a directory sessions may work in
	in   *io.PipeWriter
	msgs chan map[string]any
	done chan error
}

// slowScript makes every turn run a long command, so a turn ends only
// when it is cancelled.
const slowScript = `{"content":"Working.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"sleep 30"}}]}
{"content":"Working.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"sleep 30"}}]}
{"content":"Working.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"sleep 30"}}]}
{"content":"Working.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"sleep 30"}}]}
`

// newHarness starts a Server whose sessions run the script with the
// built-in tools; maxLine > 0 lowers the message limit.
func newHarness(t *testing.T, script string, maxLine int, opts ...func(*Config)) *harness {
	t.Helper()
	sc, err := llmtest.ParseScript(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewScripted(sc)
	cfg := Config{Open: func(ctx context.Context, env SessionEnv) (*Setup, error) {
		ws, err := safety.OpenWorkspace(env.Cwd)
		if err != nil {
			return nil, err
		}
		reg := &tools.Registry{}
		if _, err := builtin.Register(reg, ws, builtin.Options{}); err != nil {
			return nil, err
		}
		cps, err := checkpoint.New(ws, checkpoint.NewMemoryStore())
		if err != nil {
			return nil, err
		}
		cfg := agent.Config{Model: model, Tools: reg, Workspace: ws, Checkpoints: cps,
			CommandRules: safety.CommandRules{AllowReadOnly: true}, Skills: []agent.Skill{agent.TodosSkill()}}
		return &Setup{Agent: cfg, Close: func() { ws.Close() }}, nil
	}}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{t: t, dir: t.TempDir(), in: inW, msgs: make(chan map[string]any, 1024), done: make(chan error, 1)}
	go func() {
		if maxLine > 0 {
			srv.maxLine = maxLine
		}
		err := srv.Serve(context.Background(), inR, outW)
		outW.Close()
		h.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the agent wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			h.msgs <- m
		}
		close(h.msgs)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-h.done:
		case <-time.After(60 * time.Second):
			t.Error("the server did not stop within 60s of its input closing")
		}
	})
	return h
}

func (h *harness) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("writing to the agent: %v", err)
	}
}

// waitFor reads messages until one satisfies ok; the others are returned
// too, in order.
func (h *harness) waitFor(what string, ok func(map[string]any) bool) (map[string]any, []map[string]any) {
	h.t.Helper()
	var seen []map[string]any
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m, open := <-h.msgs:
			if !open {
				h.t.Fatalf("the agent closed its output while waiting for %s", what)
			}
			if ok(m) {
				return m, seen
			}
			seen = append(seen, m)
		case <-deadline:
			h.t.Fatalf("no %s within 60s; saw %v", what, seen)
		}
	}
}

// idIs matches the response to id (as JSON).
func idIs(id string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		if _, isReq := m["method"]; isReq {
			return false
		}
		b, _ := json.Marshal(m["id"])
		return string(b) == id
	}
}

// call sends a request and returns its response.
func (h *harness) call(id int, method string, params any) map[string]any {
	h.t.Helper()
	p, _ := json.Marshal(params)
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, p))
	m, _ := h.waitFor(fmt.Sprintf("the response to %s (id %d)", method, id), idIs(fmt.Sprint(id)))
	if e, bad := m["error"]; bad {
		h.t.Fatalf("%s: %v", method, e)
	}
	return m
}

// session initializes and opens a session in h.dir, returning its id.
func (h *harness) session() string {
	h.t.Helper()
	h.call(1000, "initialize", map[string]any{"protocolVersion": 1})
	m := h.call(1001, "session/new", map[string]any{"cwd": h.dir, "mcpServers": []any{}})
	return m["result"].(map[string]any)["sessionId"].(string)
}
