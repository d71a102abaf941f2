package ollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/internal/transport"
)

// Config configures a Model. The zero value talks to a local Ollama at
// DefaultHost; only Model (or Request.Model on each call) is required.
type Config struct {
	// Host is the server address in OLLAMA_HOST syntax (see ParseHost);
	// "" means DefaultHost. Reading OLLAMA_HOST is the caller's choice
	// (modelstr.Open does it).
	Host string
	// Model is the default model name, e.g. "qwen3:8b".
	Model string
	// HTTPClient is used for every request; nil means a client on
	// http.DefaultTransport. Its Transport is wrapped with the retry and
	// stall logic; do not set a client Timeout, which would cut long
	// streams: StallTimeout is the right knob.
	HTTPClient *http.Client
	// APIKey, when set, is sent as a bearer token: Ollama's cloud API
	// (https://ollama.com) needs one, a local server none. Reading
	// OLLAMA_API_KEY is the caller's choice (modelstr.Open does it).
	APIKey string
	// WireLog, when set, receives every HTTP request and response of this
	// backend as JSON lines (timestamps, request id, status, latency and
	// bodies; API keys and Authorization headers redacted), for debugging
	// what went over the wire. It is not a replay recording: see
	// llmtest.Recorder for that.
	WireLog io.Writer
	// Retry says how failed requests are retried before any byte arrives.
	Retry llm.RetryPolicy
	// StallTimeout ends a stream that sends nothing for this long, including
	// the wait for the first byte while Ollama loads the model. Keep it
	// generous: Ollama holds back a native tool call until it is complete,
	// which for a large write_file is 10–80 s of silence mid-stream.
	// 0 means 2 minutes; negative disables it.
	StallTimeout time.Duration
	// Options are default model options (top_p, num_predict…) under
	// Request.Options and Request.Temperature.
	Options map[string]any
	// NumCtx is the context window, in tokens, asked for on every chat
	// request (Ollama's num_ctx). It is lowered to the model's trained
	// maximum (from /api/show), with a warning. 0 means num_ctx in
	// Options, else EnvContextLength, else DefaultNumCtx. Capabilities
	// reports the window in use; budget prompts against it, because Ollama
	// silently drops the start of a prompt that does not fit.
	NumCtx int
	// EnvContextLength is the value of OLLAMA_CONTEXT_LENGTH, the window
	// the server itself would default to; reading it is the caller's
	// choice (modelstr.Open does it). A value that is not a positive
	// number is ignored with a warning.
	EnvContextLength string
	// KeepAlive asks Ollama to keep the model loaded this long; 0 leaves
	// the server default.
	KeepAlive time.Duration
	// Limits bound one response (content, thinking, arguments, one NDJSON
	// line, the total time); the zero value means llm's defaults. A
	// response over a bound ends with a *llm.LimitError, keeping what
	// arrived.
	Limits llm.StreamLimits
	// Logger receives retry notices; nil means silence.
	Logger *slog.Logger
}

// Model is an llm.Model on Ollama's native /api/chat. It is safe for
// concurrent use.
type Model struct {
	cfg    Config
	base   *url.URL
	http   *http.Client // with the retrying transport; chat streams through it
	client *api.Client  // the upstream client, for requests it must sign

	mu   sync.Mutex
	caps map[string]llm.Capabilities // by model name; only successes are cached
}

var (
	_ llm.Model              = (*Model)(nil)
	_ llm.CapabilityReporter = (*Model)(nil)
)

// New returns a Model for cfg. It does not contact the server.
func New(cfg Config) (*Model, error) {
	base, err := ParseHost(cfg.Host)
	if err != nil {
		return nil, err
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
		Limits:       llm.StreamLimits{MaxDuration: cfg.Limits.MaxDuration, MaxEvent: -1}, // lines are bounded by chat
	}
	if cfg.APIKey != "" {
		tr.Header = http.Header{"Authorization": {"Bearer " + cfg.APIKey}}
	}
	if cfg.WireLog != nil {
		tr.Wire = transport.NewWireLog(cfg.WireLog)
	}
	hc.Transport = tr
	if cfg.NumCtx < 0 {
		return nil, fmt.Errorf("ollama: Config.NumCtx is %d: give a positive number of tokens (e.g. 32768), or 0 for the default", cfg.NumCtx)
	}
	if ch := chooseContext(cfg); ch.note != "" && cfg.Logger != nil {
		cfg.Logger.Warn("ollama: " + ch.note)
	}
	return &Model{cfg: cfg, base: base, http: &hc, client: api.NewClient(base, &hc)}, nil
}

// Host is the server address in use.
func (m *Model) Host() string { return m.base.String() }

// errStop ends the client's read loop when the consumer stops iterating.
var errStop = errors.New("consumer stopped")

// Chat streams one response from /api/chat. No goroutine is started: the
// client's read loop runs inside the iteration, so stopping the iteration
// or cancelling ctx closes the HTTP stream before Chat's iterator returns.
func (m *Model) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		areq, err := m.request(req)
		if err == nil && !hasNumCtx(req.Options) {
			var n int
			if n, err = m.window(ctx, areq.Model); err == nil {
				areq.Options["num_ctx"] = n
			}
		}
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		tctx, rec := transport.Track(ctx)
		var (
			chunks, calls int
			done, stopped bool
			meter         = m.cfg.Limits.Meter()
		)
		err = m.chat(tctx, areq, func(r api.ChatResponse) error {
			if done {
				return nil // nothing may follow the Done chunk
			}
			c, err := chunk(r, calls)
			if err != nil {
				return err
			}
			calls += len(c.ToolCalls)
			args := 0
			for _, tc := range c.ToolCalls {
				args += len(tc.Arguments)
			}
			if err := meter.Add(len(c.Content), len(c.Thinking), args); err != nil {
				return err
			}
			if c.Done {
				c.StopReason = stopReason(r.DoneReason, calls > 0)
				done = true
			} else if c.Content == "" && c.Thinking == "" && len(c.ToolCalls) == 0 {
				return nil // keep-alive or metadata-only line
			}
			chunks++
			if !yield(c, nil) {
				stopped = true
				return errStop
			}
			return nil
		})
		if stopped || (done && err == nil) {
			return
		}
		yield(llm.Chunk{}, m.streamError(ctx, err, rec, areq.Model, chunks))
	}
}

// streamError explains why a stream did not end with a done message. The
// Record is consulted first because the ollama client swallows read errors
// (a reset connection looks like a clean end) and ignores error statuses
// whose body is empty.
func (m *Model) streamError(ctx context.Context, err error, rec *transport.Record, model string, chunks int) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if se := m.statusError(rec, model); se != nil {
		return se
	}
	if cerr := rec.ConnErr(); cerr != nil {
		return fmt.Errorf("ollama: cannot reach %s after %d attempt(s): %w (is `ollama serve` running? OLLAMA_HOST sets the address)", m.base, rec.Attempts(), cerr)
	}
	if st := (*transport.StallError)(nil); errors.As(err, &st) {
		return fmt.Errorf("ollama: %w, waiting for the first byte (a model that takes long to load needs a larger StallTimeout)", st)
	}
	if le := (*llm.LimitError)(nil); errors.As(err, &le) || errors.As(rec.ReadErr(), &le) {
		return fmt.Errorf("ollama: %w, after %d chunk(s)", le, chunks)
	}
	if rerr := rec.ReadErr(); rerr != nil {
		if errors.Is(rerr, llm.ErrStalled) {
			return fmt.Errorf("ollama: %w; the response is incomplete after %d chunk(s)", rerr, chunks)
		}
		return fmt.Errorf("ollama: connection lost after %d chunk(s) (%w): %w", chunks, rerr, llm.ErrIncomplete)
	}
	if err != nil {
		var syn *jsonSyntaxError
		if errors.As(err, &syn) {
			return fmt.Errorf("ollama: malformed line in the stream after %d chunk(s) (%w): %w", chunks, err, llm.ErrIncomplete)
		}
		// The client turns an in-stream {"error":…} line, and a line that is
		// not JSON at all, into an error carrying that text.
		msg := err.Error()
		if kind := transport.Classify(http.StatusOK, msg); kind != nil {
			if chunks > 0 {
				return fmt.Errorf("ollama: %s: %w (after %d chunk(s): %w)", msg, kind, chunks, llm.ErrIncomplete)
			}
			return fmt.Errorf("ollama: %s: %w", msg, kind)
		}
		return fmt.Errorf("ollama: stream failed after %d chunk(s), the server sent %q: %w", chunks, llm.Excerpt([]byte(msg)), llm.ErrIncomplete)
	}
	return fmt.Errorf("ollama: %w (the server closed the stream after %d chunk(s) without a done message)", llm.ErrIncomplete, chunks)
}
