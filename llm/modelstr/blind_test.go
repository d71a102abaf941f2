package modelstr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
)

// blindCase is one case of testdata/blind_local.json: how a real model
// server behaves (each case cites its public source) and what Tether must
// do about it. The batch was written before the code it tests.
type blindCase struct {
	Name, Source, Kind string

	// ollama_window
	Model      string            `json:"model"`
	Arch       string            `json:"arch"`
	Trained    int               `json:"trained"`
	Env        map[string]string `json:"env"`
	WantNumCtx int               `json:"want_num_ctx"`
	WantWindow int               `json:"want_window"`
	WantWarn   bool              `json:"want_warn"`
	WantError  string            `json:"want_error"`

	// openai_error, openai_window
	Status int    `json:"status"`
	Body   string `json:"body"`
	Props  string `json:"props"`
	Models string `json:"models"`

	// stream
	Wire   string `json:"wire"`
	MaxMiB int    `json:"max_mib"`
}

func TestBlindLocalModels(t *testing.T) {
	raw, err := os.ReadFile("testdata/blind_local.json")
	if err != nil {
		t.Fatal(err)
	}
	var batch struct{ Cases []blindCase }
	if err := json.Unmarshal(raw, &batch); err != nil {
		t.Fatal(err)
	}
	passed := 0
	for _, c := range batch.Cases {
		ok := t.Run(c.Name, func(t *testing.T) {
			t.Logf("source: %s", c.Source)
			switch c.Kind {
			case "ollama_window":
				blindOllamaWindow(t, c)
			case "openai_error":
				blindOpenAIError(t, c)
			case "openai_window":
				blindOpenAIWindow(t, c)
			case "stream":
				blindStream(t, c)
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
		})
		if ok {
			passed++
		}
	}
	t.Logf("blind batch: %d/%d pass", passed, len(batch.Cases))
}

func blindOllamaWindow(t *testing.T, c blindCase) {
	var (
		mu     sync.Mutex
		numCtx any
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/show":
			info := map[string]any{"general.architecture": c.Arch}
			if c.Trained > 0 {
				info[c.Arch+".context_length"] = c.Trained
			}
			json.NewEncoder(w).Encode(map[string]any{"model_info": info, "capabilities": []string{"completion", "tools"}})
		case "/api/chat":
			var req struct {
				Options map[string]any `json:"options"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			mu.Lock()
			numCtx = req.Options["num_ctx"]
			mu.Unlock()
			io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`+"\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	env := map[string]string{"OLLAMA_HOST": srv.URL}
	for k, v := range c.Env {
		env[k] = v
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := modelstr.Open(c.Model, modelstr.WithGetenv(func(k string) string { return env[k] }), modelstr.WithLogger(logger))
	if c.WantError != "" {
		if err == nil || !strings.Contains(err.Error(), c.WantError) {
			t.Fatalf("Open(%q) = %v, want an error naming %q", c.Model, err, c.WantError)
		}
		return
	}
	if err != nil {
		t.Fatalf("Open(%q): %v", c.Model, err)
	}
	ctx := context.Background()
	caps, err := llm.CapabilitiesOf(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Collect(m.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := numCtx
	mu.Unlock()
	if n, _ := got.(float64); int(n) != c.WantNumCtx {
		t.Errorf("num_ctx sent = %v, want %d", got, c.WantNumCtx)
	}
	if caps.ContextLength != c.WantWindow {
		t.Errorf("Capabilities.ContextLength = %d, want the requested window %d", caps.ContextLength, c.WantWindow)
	}
	if warned := strings.Contains(logs.String(), "level=WARN"); warned != c.WantWarn {
		t.Errorf("warning logged = %v, want %v; log: %s", warned, c.WantWarn, logs.String())
	}
}

func blindOpenAIError(t *testing.T, c blindCase) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(c.Status)
		io.WriteString(w, c.Body)
	}))
	defer srv.Close()
	m, err := modelstr.Open("openai:m", modelstr.WithGetenv(func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return srv.URL + "/v1"
		}
		return ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.Collect(m.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	if !errors.Is(err, llm.ErrContextTooLong) {
		t.Fatalf("error = %v, want llm.ErrContextTooLong", err)
	}
}

func blindOpenAIWindow(t *testing.T, c blindCase) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body string
		switch r.URL.Path {
		case "/props":
			body = c.Props
		case "/v1/models":
			body = c.Models
		}
		if body == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	m, err := modelstr.Open("openai:"+c.Model, modelstr.WithGetenv(func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return srv.URL + "/v1"
		}
		return ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	caps, err := llm.CapabilitiesOf(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if caps.ContextLength != c.WantWindow {
		t.Fatalf("Capabilities.ContextLength = %d, want %d", caps.ContextLength, c.WantWindow)
	}
}

// blindStream serves an endless or unterminated stream and counts what
// it wrote before the client hung up; reaching MaxMiB is a failure.
func blindStream(t *testing.T, c blindCase) {
	pad := strings.Repeat("x", 4096)
	var head, unit string
	scheme := "openai"
	switch c.Wire {
	case "ndjson_content":
		scheme, unit = "ollama", `{"model":"m","message":{"role":"assistant","content":"`+pad+`"},"done":false}`+"\n"
	case "ndjson_thinking":
		scheme, unit = "ollama", `{"model":"m","message":{"role":"assistant","content":"","thinking":"`+pad+`"},"done":false}`+"\n"
	case "sse_content":
		unit = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + pad + `"}}]}` + "\n\n"
	case "sse_unterminated":
		unit = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + pad + `"}}]}` + "\n"
	case "sse_no_newline":
		head, unit = `data: {"id":"c","choices":[{"index":0,"delta":{"content":"`, pad
	case "sse_arguments":
		head = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write_file","arguments":"{\"content\":\""}}]}}]}` + "\n\n"
		unit = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + pad + `"}}]}}]}` + "\n\n"
	default:
		t.Fatalf("unknown wire %q", c.Wire)
	}
	limit := int64(c.MaxMiB) << 20
	written := make(chan int64, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat") && !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		if scheme == "ollama" {
			w.Header().Set("Content-Type", "application/x-ndjson")
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		n, _ := io.WriteString(w, head)
		total := int64(n)
		block := []byte(strings.Repeat(unit, max(1, (64<<10)/len(unit))))
		for total < limit {
			n, err := w.Write(block)
			total += int64(n)
			if err != nil {
				break
			}
		}
		written <- total
	}))
	defer srv.Close()
	m, err := modelstr.Open(scheme+":m", modelstr.WithGetenv(func(k string) string {
		switch k {
		case "OLLAMA_HOST":
			return srv.URL
		case "OPENAI_BASE_URL":
			return srv.URL + "/v1"
		}
		return ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = llm.Collect(m.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	if err == nil {
		t.Fatal("an endless stream ended without an error")
	}
	srv.CloseClientConnections()
	n := <-written
	if n >= limit {
		t.Fatalf("the client read %d MiB of one response and was still reading (err %v); it must stop with a clear error", n>>20, err)
	}
	t.Logf("stopped after %.1f MiB: %v", float64(n)/(1<<20), err)
}
