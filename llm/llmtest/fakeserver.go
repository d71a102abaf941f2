package llmtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// FakeServer is an httptest server that speaks a model server's wire
// format (NewFakeOllama, NewFakeOpenAI) and plays a Script, with faults on
// demand. Close it when done, as with httptest.Server.
type FakeServer struct {
	*httptest.Server

	// Model is the only model name the server knows; "" accepts any name.
	Model string
	// APIKey, when set, is required as a bearer token (401 otherwise).
	APIKey string
	// ChunkRunes is the size of streamed text pieces; 0 means 3.
	ChunkRunes int
	// ContextLength is the model's window: Ollama's trained maximum in
	// /api/show (a request's num_ctx is capped by it), an OpenAI-compatible
	// server's running window (vLLM max_model_len, llama.cpp n_ctx), over
	// which a request is refused. 0 means 32768.
	ContextLength int
	// DefaultNumCtx is the window of an Ollama request without num_ctx;
	// 0 means OllamaDefaultNumCtx (4096), as real Ollama under 24 GiB of
	// VRAM. Prompts reports what each request's model saw.
	DefaultNumCtx int
	// Flavor is the OpenAI-compatible server imitated: FlavorVLLM ("")
	// or FlavorLlamaCpp.
	Flavor string
	// MaxContextLength is llama.cpp's trained context (meta.n_ctx_train);
	// 0 means ContextLength.
	MaxContextLength int

	// OpenAI wire quirks, to imitate the servers that have them.
	// ReasoningField names the delta field carrying thinking: "" means
	// "reasoning_content" (vLLM, llama.cpp); OpenRouter uses "reasoning".
	ReasoningField string
	// ToolIndexZero labels every streamed tool call index 0, as some
	// servers do; calls are then told apart by id (or name).
	ToolIndexZero bool
	// NoToolCallIDs leaves ids out of streamed tool calls.
	NoToolCallIDs bool

	mu       sync.Mutex
	script   Script
	next     int
	faults   []Fault
	requests []json.RawMessage
	prompts  []Prompt
	closing  chan struct{}
	once     sync.Once
	gone     chan struct{}
}

func newFakeServer(s Script, h func(*FakeServer) http.Handler) *FakeServer {
	f := &FakeServer{script: s, closing: make(chan struct{}), gone: make(chan struct{}, 64)}
	f.Server = httptest.NewServer(h(f))
	return f
}

// Close releases stalled handlers and shuts the server down.
func (f *FakeServer) Close() {
	f.once.Do(func() { close(f.closing) })
	f.Server.Close()
}

// Fail queues faults: the next chat requests take them one each, in order.
func (f *FakeServer) Fail(faults ...Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, faults...)
}

// Requests returns the body of every chat request received, including
// failed attempts and retries.
func (f *FakeServer) Requests() []json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// Served reports how many script turns have been streamed (completely or
// not).
func (f *FakeServer) Served() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

func (f *FakeServer) chunkRunes() int {
	if f.ChunkRunes > 0 {
		return f.ChunkRunes
	}
	return 3
}

func (f *FakeServer) contextLength() int {
	if f.ContextLength > 0 {
		return f.ContextLength
	}
	return 32768
}

func (f *FakeServer) defaultNumCtx() int {
	if f.DefaultNumCtx > 0 {
		return f.DefaultNumCtx
	}
	return OllamaDefaultNumCtx
}

func (f *FakeServer) capabilities() (tools, thinking bool) {
	if c := f.script.Capabilities; c != nil {
		return c.Tools, c.Thinking
	}
	return true, true
}

func (f *FakeServer) knows(model string) bool {
	return f.Model == "" || model == f.Model
}

func (f *FakeServer) authorized(r *http.Request) bool {
	return f.APIKey == "" || r.Header.Get("Authorization") == "Bearer "+f.APIKey
}

// take records a chat request and picks its fault and, unless the fault
// is a status answer, its turn. ok is false when the script is exhausted.
func (f *FakeServer) take(body []byte) (fault Fault, turn Turn, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, json.RawMessage(body))
	if len(f.faults) > 0 {
		fault = f.faults[0]
		f.faults = f.faults[1:]
	}
	if fault.Kind == FaultStatus || (fault.Kind == FaultReset && fault.After == 0) {
		return fault, Turn{}, true // nothing is streamed: the turn stays for the retry
	}
	if f.next >= len(f.script.Turns) {
		return fault, Turn{}, false
	}
	turn = f.script.Turns[f.next]
	f.next++
	return fault, turn, true
}

// stall blocks until the client goes away or the server closes.
func (f *FakeServer) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
		select {
		case f.gone <- struct{}{}:
		default:
		}
	case <-f.closing:
	}
}

// ClientGone receives a value each time a client closes the connection of
// a stalled stream, so a test can check that cancelling really closed the
// HTTP stream and did not merely stop reading it.
func (f *FakeServer) ClientGone() <-chan struct{} { return f.gone }

// split cuts s into pieces of n runes.
func split(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

// streamWriter counts the lines a handler writes and applies the fault
// when the count reaches fault.After. write reports false once the
// handler must stop.
type streamWriter struct {
	w       http.ResponseWriter
	r       *http.Request
	f       *FakeServer
	fault   Fault
	lines   int
	garbage string              // the malformed line, in the wire's framing
	errLine func(string) string // an in-stream error line, in the wire's framing
}

func (s *streamWriter) write(line string) bool {
	if s.lines == s.fault.After && s.inject() {
		return false
	}
	if _, err := s.w.Write([]byte(line)); err != nil {
		return false
	}
	s.lines++
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
	return true
}

// inject applies a stream fault; true means the stream is over.
func (s *streamWriter) inject() bool {
	switch s.fault.Kind {
	case FaultReset:
		// Aborting the handler makes net/http drop the connection without
		// finishing the chunked body: the client sees an unexpected EOF
		// (or, with nothing written yet, a failed request).
		panic(http.ErrAbortHandler)
	case FaultMalformed:
		s.w.Write([]byte(s.garbage))
		if fl, ok := s.w.(http.Flusher); ok {
			fl.Flush()
		}
		s.fault = Fault{} // the stream goes on after the garbage, as a confused proxy's would
		return false
	case FaultErrorLine:
		s.w.Write([]byte(s.errLine(s.fault.Body)))
		if fl, ok := s.w.(http.Flusher); ok {
			fl.Flush()
		}
		return true
	case FaultStall:
		if fl, ok := s.w.(http.Flusher); ok {
			fl.Flush()
		}
		s.f.stall(s.r)
		return true
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func bearerMissing(r *http.Request) bool {
	return !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
}
