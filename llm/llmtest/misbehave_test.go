package llmtest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/ollama"
	"github.com/tetherdev/tether/llm/openai"
)

// TestMisbehavingServersAreBounded: small limits, both wires; each bound
// ends the call with a *llm.LimitError that names it, and what arrived
// before is kept. The trickling server sends a byte often enough that
// the stall timeout never fires: only the time limit stops it.
func TestMisbehavingServersAreBounded(t *testing.T) {
	limits := llm.StreamLimits{MaxContent: 64 << 10, MaxThinking: 64 << 10, MaxArguments: 64 << 10, MaxEvent: 32 << 10, MaxDuration: 500 * time.Millisecond}
	pad := strings.Repeat("y", 1024)
	trickle := func(unit string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.URL.Path, "chat") {
				http.NotFound(w, r)
				return
			}
			for {
				if _, err := io.WriteString(w, unit); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}))
	}
	tests := []struct {
		name, what string
		srv        *httptest.Server
		ollama     bool
	}{
		{"ndjson content", "content", endlessServer("application/x-ndjson", "", `{"message":{"role":"assistant","content":"`+pad+`"},"done":false}`+"\n"), true},
		{"ndjson line", "NDJSON line", endlessServer("application/x-ndjson", `{"message":{"role":"assistant","content":"`, pad), true},
		{"sse content", "content", endlessServer("text/event-stream", "", `data: {"choices":[{"index":0,"delta":{"content":"`+pad+`"}}]}`+"\n\n"), false},
		{"sse event", "SSE event", endlessServer("text/event-stream", "", `data: {"choices":[{"index":0,"delta":{"content":"`+pad+`"}}]}`+"\n"), false},
		{"sse arguments", "tool-call arguments", endlessServer("text/event-stream",
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"w","arguments":"{\"a\":\""}}]}}]}`+"\n\n",
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"`+pad+`"}}]}}]}`+"\n\n"), false},
		{"ndjson trickle", "time", trickle(`{"message":{"role":"assistant","content":"a"},"done":false}` + "\n"), true},
		{"sse trickle", "time", trickle(`data: {"choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.srv.Close()
			var m llm.Model
			var err error
			if tt.ollama {
				m, err = ollama.New(ollama.Config{Host: tt.srv.URL, Model: "m", Limits: limits, StallTimeout: 10 * time.Second})
			} else {
				m, err = openai.New(openai.Config{BaseURL: tt.srv.URL + "/v1", Model: "m", Limits: limits, StallTimeout: 10 * time.Second})
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			r, err := llm.Collect(m.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
			var le *llm.LimitError
			if !errors.As(err, &le) || le.What != tt.what || !errors.Is(err, llm.ErrIncomplete) {
				t.Fatalf("err = %v, want a %q limit", err, tt.what)
			}
			if tt.what == "content" && (len(r.Message.Content) == 0 || len(r.Message.Content) > 64<<10) {
				t.Errorf("kept %d bytes of content, want what arrived within the bound", len(r.Message.Content))
			}
			if tt.what == "time" && time.Since(start) > 30*time.Second {
				t.Errorf("the time limit of 500ms took %s", time.Since(start))
			}
		})
	}
}
