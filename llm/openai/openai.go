package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	oai "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/internal/transport"
)

// DefaultBaseURL is OpenAI's own endpoint.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Model. The zero value talks to OpenAI; for a local
// server set BaseURL (vLLM: http://localhost:8000/v1, llama.cpp:
// http://localhost:8080/v1, LM Studio: http://localhost:1234/v1, Ollama:
// http://localhost:11434/v1).
type Config struct {
	// BaseURL is the API root, ending in /v1; "" means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (most local servers).
	// Reading OPENAI_API_KEY is the caller's choice (modelstr.Open does it).
	APIKey string
	// Model is the default model name.
	Model string
	// HTTPClient is used for every request; nil means a client on
	// http.DefaultTransport. Its Transport is wrapped with the retry and
	// stall logic; do not set a client Timeout, use StallTimeout.
	HTTPClient *http.Client
	// WireLog, when set, receives every HTTP request and response of this
	// backend as JSON lines (timestamps, request id, status, latency and
	// bodies; API keys and Authorization headers redacted), for debugging
	// what went over the wire. It is not a replay recording: see
	// llmtest.Recorder for that.
	WireLog io.Writer
	// Retry says how failed requests are retried before any byte arrives.
	// The openai-go client's own retries are turned off so that this policy
	// (with its injectable clock) is the only one.
	Retry llm.RetryPolicy
	// StallTimeout ends a stream that sends nothing for this long, including
	// the wait for the first byte. 0 means 2 minutes; negative disables it.
	StallTimeout time.Duration
	// Capabilities, when set, is what Capabilities reports without asking
	// the server. Otherwise the server's /models listing is consulted and
	// native tools are assumed, because every server this package targets
	// accepts them; a server that refuses them yields llm.ErrNoToolSupport
	// on the first request with tools.
	Capabilities *llm.Capabilities
	// ContextLength is the window, in tokens, to budget prompts against
	// when the server does not report one, or a smaller one than it
	// reports (see Capabilities); 0 means what the server reports.
	ContextLength int
	// ExtraBody adds top-level JSON fields to every chat request, e.g.
	// {"chat_template_kwargs": {"enable_thinking": false}} for vLLM.
	// Request.Options adds fields per request the same way.
	ExtraBody map[string]any
	// NoStreamUsage leaves out stream_options.include_usage, for the rare
	// server that rejects it; token counts are then zero.
	NoStreamUsage bool
	// Limits bound one response (content, reasoning, tool-call
	// arguments, one SSE event, the total time); the zero value means
	// llm's defaults. A response over a bound ends with a
	// *llm.LimitError, keeping what arrived.
	Limits llm.StreamLimits
	// Logger receives retry notices; nil means silence.
	Logger *slog.Logger
}

// Model is an llm.Model on an OpenAI-compatible /chat/completions
// endpoint with SSE streaming. It is safe for concurrent use.
type Model struct {
	cfg  Config
	base string
	http *http.Client
	chat *oai.ChatCompletionService

	mu   sync.Mutex
	caps map[string]llm.Capabilities
}

var (
	_ llm.Model              = (*Model)(nil)
	_ llm.CapabilityReporter = (*Model)(nil)
)

// New returns a Model for cfg. It does not contact the server.
func New(cfg Config) (*Model, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("openai: base URL %q must start with http:// or https:// (e.g. http://localhost:8000/v1)", cfg.BaseURL)
	}
	hc := http.Client{}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	tr := &transport.Transport{
		Base:         hc.Transport,
		Retry:        cfg.Retry,
		StallTimeout: cfg.StallTimeout,
		Logger:       cfg.Logger,
		Limits:       cfg.Limits,
	}
	if cfg.WireLog != nil {
		tr.Wire = transport.NewWireLog(cfg.WireLog)
	}
	hc.Transport = tr
	// NewChatService rather than NewClient: NewClient reads OPENAI_* from
	// the process environment, and configuration here is explicit.
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(&hc),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	svc := oai.NewChatCompletionService(opts...)
	return &Model{cfg: cfg, base: base, http: &hc, chat: &svc}, nil
}

// BaseURL is the API root in use.
func (m *Model) BaseURL() string { return m.base }

// Chat streams one response. Content and reasoning deltas are yielded as
// they arrive; tool calls, assembled from their deltas with
// llm.ToolCallAssembler, arrive complete in the final Done chunk. No
// goroutine is started; stopping the iteration or cancelling ctx closes
// the HTTP stream.
func (m *Model) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		p, opts, err := m.params(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		tctx, rec := transport.Track(ctx)
		stream := m.chat.NewStreaming(tctx, p, opts...)
		defer stream.Close()

		var (
			asm    llm.ToolCallAssembler
			finish string
			usage  llm.Usage
			chunks int
			meter  = m.cfg.Limits.Meter()
		)
		for stream.Next() {
			ev := stream.Current()
			if ev.JSON.Usage.Valid() && ev.Usage.TotalTokens+ev.Usage.PromptTokens > 0 {
				usage = llm.Usage{PromptTokens: int(ev.Usage.PromptTokens), CompletionTokens: int(ev.Usage.CompletionTokens)}
			}
			for _, ch := range ev.Choices {
				if ch.Index != 0 {
					continue // n > 1 is never requested
				}
				d := ch.Delta
				extra := make(map[string]string, len(d.JSON.ExtraFields))
				for k, f := range d.JSON.ExtraFields {
					extra[k] = f.Raw()
				}
				args := 0
				for _, tc := range d.ToolCalls {
					args += len(tc.Function.Arguments)
					asm.Add(llm.ToolCallDelta{Index: int(tc.Index), ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
				}
				if ch.FinishReason != "" {
					finish = ch.FinishReason
				}
				c := llm.Chunk{Content: d.Content, Thinking: reasoning(extra)}
				if err := meter.Add(len(c.Content), len(c.Thinking), args); err != nil {
					yield(llm.Chunk{}, fmt.Errorf("openai: %w, after %d chunk(s)", err, chunks))
					return
				}
				if c.Content == "" && c.Thinking == "" {
					continue
				}
				chunks++
				if !yield(c, nil) {
					return
				}
			}
		}
		if err := stream.Err(); err != nil {
			yield(llm.Chunk{}, m.streamError(ctx, err, rec, chunks))
			return
		}
		if finish == "" {
			yield(llm.Chunk{}, fmt.Errorf("openai: %w (the stream ended after %d chunk(s) without a finish_reason)", llm.ErrIncomplete, chunks))
			return
		}
		calls, err := asm.Calls()
		for i := range calls {
			calls[i].ID = callID(calls[i].ID, i)
		}
		if err != nil {
			var mal *llm.MalformedToolCallError
			if errors.As(err, &mal) {
				mal.Calls = calls
			}
			yield(llm.Chunk{}, fmt.Errorf("openai: %w", err))
			return
		}
		yield(llm.Chunk{ToolCalls: calls, Done: true, Usage: usage, StopReason: stopReason(finish, len(calls) > 0)}, nil)
	}
}
