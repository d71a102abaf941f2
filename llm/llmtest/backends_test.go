package llmtest_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
	"github.com/tetherdev/tether/llm/openai"
)

// sleeper records the delays a retry policy asks for and returns at once.
type sleeper struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) Delays() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

type backendOpts struct {
	retry llm.RetryPolicy
	stall time.Duration
}

// backend is one model server kind under test: its fake and a model on it.
type backend struct {
	name     string
	fake     func(llmtest.Script) *llmtest.FakeServer
	model    func(t *testing.T, srv *llmtest.FakeServer, o backendOpts) llm.Model
	hostHint string // what a connection error tells the user
}

var backends = []backend{
	{
		name: "ollama",
		fake: llmtest.NewFakeOllama,
		model: func(t *testing.T, srv *llmtest.FakeServer, o backendOpts) llm.Model {
			m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "fake", HTTPClient: srv.Client(), Retry: o.retry, StallTimeout: o.stall})
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		hostHint: "ollama serve",
	},
	{
		name: "openai",
		fake: llmtest.NewFakeOpenAI,
		model: func(t *testing.T, srv *llmtest.FakeServer, o backendOpts) llm.Model {
			m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "fake", HTTPClient: srv.Client(), Retry: o.retry, StallTimeout: o.stall})
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		hostHint: "base URL",
	},
}

var oneTurn = llmtest.Script{Turns: []llmtest.Turn{{
	Thinking: "The user greets me.",
	Content:  "Hello there, how can I help you today?",
}}}

var userHello = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}

// drain collects a stream, keeping every delta in order.
func drain(stream func(func(llm.Chunk, error) bool)) (content, thinking string, chunks []llm.Chunk, err error) {
	for c, e := range stream {
		if e != nil {
			return content, thinking, chunks, e
		}
		chunks = append(chunks, c)
		content += c.Content
		thinking += c.Thinking
	}
	return content, thinking, chunks, nil
}

// stallFor keeps the stall timeout short only where a stall is the point,
// so that a loaded machine cannot turn a slow line into a false stall.
func stallFor(faults []llmtest.Fault) time.Duration {
	for _, f := range faults {
		if f.Kind == llmtest.FaultStall {
			return 250 * time.Millisecond
		}
	}
	return 30 * time.Second
}

func TestBackendsFaults(t *testing.T) {
	const full = "Hello there, how can I help you today?"
	tests := []struct {
		name   string
		faults []llmtest.Fault
		// expectations
		wantErr      error // errors.Is target; nil means success
		wantRequests int   // HTTP chat requests the server saw
		wantSleeps   int
		minSleep     time.Duration // the first sleep is at least this (Retry-After)
		wantStatus   int           // when wantErr is a *StatusError
		wantInMsg    []string      // substrings of the error message
		partial      bool          // some content delivered before the error, never repeated
	}{
		{name: "clean", wantRequests: 1},
		{name: "429 Retry-After then success", faults: []llmtest.Fault{llmtest.RateLimited(2 * time.Second)},
			wantRequests: 2, wantSleeps: 1, minSleep: 2 * time.Second},
		{name: "500 twice then success", faults: []llmtest.Fault{llmtest.Status(500), llmtest.Status(503)},
			wantRequests: 3, wantSleeps: 2},
		{name: "reset before first byte then success", faults: []llmtest.Fault{llmtest.ResetAfter(0)},
			wantRequests: 2, wantSleeps: 1},
		{name: "500 on every attempt", faults: []llmtest.Fault{llmtest.Status(500), llmtest.Status(500), llmtest.Status(500)},
			wantErr: &llm.StatusError{}, wantStatus: 500, wantRequests: 3, wantSleeps: 2,
			wantInMsg: []string{"HTTP 500", "fake 500", "after 3 attempt(s)"}},
		{name: "429 asking longer than the policy waits", faults: []llmtest.Fault{llmtest.RateLimited(10 * time.Minute)},
			wantErr: llm.ErrRateLimited, wantStatus: 429, wantRequests: 1, wantSleeps: 0,
			wantInMsg: []string{"HTTP 429", "retry after 10m0s"}},
		{name: "501 is not retried", faults: []llmtest.Fault{llmtest.Status(501)},
			wantErr: &llm.StatusError{}, wantStatus: 501, wantRequests: 1},
		{name: "reset mid-stream is not retried", faults: []llmtest.Fault{llmtest.ResetAfter(4)},
			wantErr: llm.ErrIncomplete, wantRequests: 1, partial: true, wantInMsg: []string{"connection lost after"}},
		{name: "malformed line is not retried", faults: []llmtest.Fault{llmtest.MalformedAfter(4)},
			wantErr: llm.ErrIncomplete, wantRequests: 1, partial: true},
		{name: "error line mid-stream", faults: []llmtest.Fault{llmtest.ErrorAfter(4, "llama runner process has terminated: signal: killed")},
			wantErr: llm.ErrIncomplete, wantRequests: 1, partial: true, wantInMsg: []string{"runner process has terminated"}},
		{name: "context error line before content", faults: []llmtest.Fault{llmtest.ErrorAfter(0, "the request exceeds the available context size, try increasing it")},
			wantErr: llm.ErrContextTooLong, wantRequests: 1, wantInMsg: []string{"context size"}},
		{name: "stall mid-stream", faults: []llmtest.Fault{llmtest.StallAfter(4)},
			wantErr: llm.ErrStalled, wantRequests: 1, partial: true, wantInMsg: []string{"stalled", "250ms"}},
		{name: "stall before the first byte is not retried", faults: []llmtest.Fault{llmtest.StallAfter(0)},
			wantErr: llm.ErrStalled, wantRequests: 1, wantInMsg: []string{"250ms", "first byte"}},
		{name: "context too long", faults: []llmtest.Fault{llmtest.StatusBody(400,
			`{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`)},
			wantErr: llm.ErrContextTooLong, wantStatus: 400, wantRequests: 1, wantInMsg: []string{"8192"}},
		{name: "plain-text 502 body", faults: []llmtest.Fault{llmtest.StatusBody(502, "<html>Bad Gateway</html>"), llmtest.StatusBody(502, "<html>Bad Gateway</html>"), llmtest.StatusBody(502, "<html>Bad Gateway</html>")},
			wantErr: &llm.StatusError{}, wantStatus: 502, wantRequests: 3, wantSleeps: 2, wantInMsg: []string{"Bad Gateway"}},
	}
	for _, be := range backends {
		for _, tt := range tests {
			t.Run(be.name+"/"+tt.name, func(t *testing.T) {
				srv := be.fake(oneTurn)
				defer srv.Close()
				srv.Fail(tt.faults...)
				sl := &sleeper{}
				m := be.model(t, srv, backendOpts{
					retry: llm.RetryPolicy{MaxAttempts: 3, Sleep: sl.Sleep, MaxRetryAfter: time.Minute},
					stall: stallFor(tt.faults),
				})
				content, thinking, chunks, err := drain(m.Chat(t.Context(), userHello))

				if err != nil {
					t.Logf("error: %v", err)
				}
				if got := len(srv.Requests()); got != tt.wantRequests {
					t.Errorf("server saw %d chat requests, want %d", got, tt.wantRequests)
				}
				if got := len(sl.Delays()); got != tt.wantSleeps {
					t.Errorf("retry sleeps = %d (%v), want %d", got, sl.Delays(), tt.wantSleeps)
				}
				if tt.minSleep > 0 && len(sl.Delays()) > 0 && sl.Delays()[0] < tt.minSleep {
					t.Errorf("first retry waited %v, want at least the Retry-After %v", sl.Delays()[0], tt.minSleep)
				}
				// Never duplicated: what arrived is always a prefix of the script.
				if !strings.HasPrefix(full, content) {
					t.Errorf("content %q is not a prefix of %q: something was duplicated", content, full)
				}
				if !strings.HasPrefix(oneTurn.Turns[0].Thinking, thinking) {
					t.Errorf("thinking %q is not a prefix of the script's", thinking)
				}
				if tt.wantErr == nil {
					if srv.Served() != 1 {
						t.Errorf("server streamed %d turns, want 1: a failed attempt used up a turn", srv.Served())
					}
					if err != nil {
						t.Fatalf("unexpected error: %v", err)
					}
					if content != full || thinking != oneTurn.Turns[0].Thinking {
						t.Errorf("got content %q thinking %q", content, thinking)
					}
					last := chunks[len(chunks)-1]
					if !last.Done || last.StopReason != llm.StopEnd || last.Usage.CompletionTokens == 0 {
						t.Errorf("last chunk = %+v, want Done with stop and usage", last)
					}
					return
				}
				if err == nil {
					t.Fatalf("no error; want %v", tt.wantErr)
				}
				var se *llm.StatusError
				if _, isStatus := tt.wantErr.(*llm.StatusError); isStatus {
					if !errors.As(err, &se) {
						t.Fatalf("error %v (%T) is not a *llm.StatusError", err, err)
					}
				} else if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %q does not match %v", err, tt.wantErr)
				}
				if tt.wantStatus != 0 {
					if !errors.As(err, &se) || se.StatusCode != tt.wantStatus {
						t.Fatalf("error %v: want *StatusError with status %d", err, tt.wantStatus)
					}
					if se.Body == "" || se.Backend != be.name {
						t.Errorf("StatusError %+v lacks a body excerpt or backend", se)
					}
				}
				for _, s := range tt.wantInMsg {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				if tt.partial && content+thinking == "" {
					t.Errorf("expected some content before the fault")
				}
				if !tt.partial && content+thinking != "" {
					t.Errorf("content %q delivered before a fault that happens before the first byte", content)
				}
			})
		}
	}
}

func TestBackendsTypedErrors(t *testing.T) {
	noTools := llmtest.Script{Capabilities: &llm.Capabilities{Tools: false}, Turns: oneTurn.Turns}
	withTools := llm.Request{Messages: userHello.Messages, Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file",
		Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
	tests := []struct {
		name    string
		script  llmtest.Script
		setup   func(*llmtest.FakeServer)
		req     llm.Request
		want    error
		status  int
		mention map[string]string // backend → substring of the message
	}{
		{name: "model not found", script: oneTurn, setup: func(s *llmtest.FakeServer) { s.Model = "other" }, req: userHello,
			want: llm.ErrModelNotFound, status: 404, mention: map[string]string{"ollama": "ollama pull fake", "openai": "/models"}},
		{name: "unauthorized", script: oneTurn, setup: func(s *llmtest.FakeServer) { s.APIKey = "sekrit" }, req: userHello,
			want: llm.ErrUnauthorized, status: 401, mention: map[string]string{"ollama": "sign", "openai": "OPENAI_API_KEY"}},
		{name: "no tool support", script: noTools, req: withTools,
			want: llm.ErrNoToolSupport, status: 400, mention: map[string]string{"ollama": "does not support tools", "openai": "does not support tools"}},
	}
	for _, be := range backends {
		for _, tt := range tests {
			t.Run(be.name+"/"+tt.name, func(t *testing.T) {
				srv := be.fake(tt.script)
				defer srv.Close()
				if tt.setup != nil {
					tt.setup(srv)
				}
				m := be.model(t, srv, backendOpts{retry: llm.RetryPolicy{Sleep: (&sleeper{}).Sleep}})
				_, err := llm.Collect(m.Chat(t.Context(), tt.req))
				if !errors.Is(err, tt.want) {
					t.Fatalf("error %v, want errors.Is %v", err, tt.want)
				}
				var se *llm.StatusError
				if !errors.As(err, &se) || se.StatusCode != tt.status {
					t.Fatalf("error %v: want *StatusError %d", err, tt.status)
				}
				if s := tt.mention[be.name]; !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
				// Ollama learns a missing model or a refused key from the
				// /api/show it reads before the first chat: no chat is sent.
				if n := len(srv.Requests()); n > 1 {
					t.Errorf("%d requests: a %d must not be retried", n, tt.status)
				}
			})
		}
	}
}

func TestBackendsConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens here now
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			sl := &sleeper{}
			var m llm.Model
			hc := &http.Client{Transport: &http.Transport{}}
			defer hc.CloseIdleConnections()
			switch be.name {
			case "ollama":
				m, err = ollama.New(ollama.Config{Host: "http://" + addr, Model: "x", HTTPClient: hc, Retry: llm.RetryPolicy{MaxAttempts: 3, Sleep: sl.Sleep}})
			case "openai":
				m, err = openai.New(openai.Config{BaseURL: "http://" + addr + "/v1", Model: "x", HTTPClient: hc, Retry: llm.RetryPolicy{MaxAttempts: 3, Sleep: sl.Sleep}})
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err := llm.Collect(m.Chat(t.Context(), userHello))
			if err == nil {
				t.Fatal("no error from a closed port")
			}
			for _, s := range []string{"cannot reach", "after 3 attempt(s)", be.hostHint} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if len(sl.Delays()) != 2 {
				t.Errorf("slept %v, want 2 backoffs", sl.Delays())
			}
		})
	}
}

// TestBackendsCancel cancels ctx while the server is silent mid-stream and
// requires the iteration to end with ctx's error, and the connection to
// close, long before the one-minute stall timeout could have ended it.
// The bound is generous because CI machines are slow under -race; what it
// tells apart is "at once" from "when the stall timer fires".
func TestBackendsCancel(t *testing.T) {
	const promptly = 5 * time.Second
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			srv := be.fake(oneTurn)
			defer srv.Close()
			srv.Fail(llmtest.StallAfter(3))
			m := be.model(t, srv, backendOpts{stall: time.Minute})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cancelled := make(chan time.Time, 1)
			armed := false
			var gotErr error
			for c, err := range m.Chat(ctx, userHello) {
				if err != nil {
					gotErr = err
					break
				}
				if !armed && (c.Content != "" || c.Thinking != "") {
					armed = true
					go func() {
						time.Sleep(50 * time.Millisecond) // let the stream block on the stall
						cancelled <- time.Now()
						cancel()
					}()
				}
			}
			if !errors.Is(gotErr, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", gotErr)
			}
			at := <-cancelled
			if elapsed := time.Since(at); elapsed > promptly {
				t.Errorf("stream ended %v after cancel, want it at once", elapsed)
			}
			select {
			case <-srv.ClientGone():
			case <-time.After(promptly):
				t.Errorf("the server did not see the connection close within %v of cancel", promptly)
			}
		})
	}
}

// TestBackendsEarlyBreak stops iterating after one chunk; the connection
// must be closed at once (goleak in TestMain checks nothing is left running).
func TestBackendsEarlyBreak(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			srv := be.fake(oneTurn)
			defer srv.Close()
			srv.Fail(llmtest.StallAfter(3)) // the server would hold the stream open
			m := be.model(t, srv, backendOpts{stall: time.Minute})
			for c, err := range m.Chat(t.Context(), userHello) {
				if err != nil {
					t.Fatal(err)
				}
				if c.Content != "" || c.Thinking != "" {
					break
				}
			}
			select {
			case <-srv.ClientGone():
			case <-time.After(5 * time.Second):
				t.Error("breaking out of the loop did not close the HTTP stream")
			}
		})
	}
}
