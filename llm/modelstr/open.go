package modelstr

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/ollama"
	"github.com/tetherdev/tether/llm/openai"
	"github.com/tetherdev/tether/llm/scripted"
)

// ErrUnknownScheme is returned by Open for a model string whose scheme is
// not ollama, openai or script.
var ErrUnknownScheme = errors.New("unknown model scheme: use ollama:NAME, openai:NAME or script:FILE")

// Option configures Open.
type Option func(*openConfig) error

type openConfig struct {
	getenv       func(string) string
	httpClient   *http.Client
	retry        llm.RetryPolicy
	stallTimeout time.Duration
	logger       *slog.Logger
	wireLog      io.Writer
	numCtx       int
	limits       llm.StreamLimits
}

// WithStreamLimits bounds each response of network backends (see
// llm.StreamLimits; the zero value means its defaults).
func WithStreamLimits(l llm.StreamLimits) Option {
	return func(c *openConfig) error {
		c.limits = l
		return nil
	}
}

// WithNumCtx sets the context window, in tokens, of network backends:
// Ollama asks for it as num_ctx on every request, an OpenAI-compatible
// backend budgets with it where the server reports none (see
// ollama.Config.NumCtx, openai.Config.ContextLength). A num_ctx option in
// the model string wins over it; 0 leaves the backend's choice.
func WithNumCtx(n int) Option {
	return func(c *openConfig) error {
		if n < 0 {
			return fmt.Errorf("modelstr: WithNumCtx(%d): give a positive number of tokens, or 0 for the backend's default", n)
		}
		c.numCtx = n
		return nil
	}
}

// modelOptions are the options a model string may carry after "?".
type modelOptions struct {
	numCtx int
}

// parseOptions splits "NAME?key=value&…" into the name and its options.
// Unknown keys and bad values are errors that say what to write.
func parseOptions(model, name string) (string, modelOptions, error) {
	var o modelOptions
	name, query, ok := strings.Cut(name, "?")
	if !ok {
		return name, o, nil
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return "", o, fmt.Errorf("modelstr: model %q: options after \"?\": %w (write e.g. ?num_ctx=32768)", model, err)
	}
	for key, vs := range vals {
		switch key {
		case "num_ctx":
			v := vs[len(vs)-1]
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return "", o, fmt.Errorf("modelstr: model %q: num_ctx=%q is not a positive number of tokens (write e.g. num_ctx=32768)", model, v)
			}
			o.numCtx = n
		default:
			return "", o, fmt.Errorf("modelstr: model %q: unknown option %q (the options are: num_ctx)", model, key)
		}
	}
	return name, o, nil
}

// WithGetenv replaces os.Getenv for reading OLLAMA_HOST,
// OLLAMA_CONTEXT_LENGTH, OPENAI_BASE_URL and OPENAI_API_KEY, so tests need not touch the process environment.
func WithGetenv(getenv func(string) string) Option {
	return func(c *openConfig) error {
		if getenv == nil {
			return errors.New("modelstr: WithGetenv(nil)")
		}
		c.getenv = getenv
		return nil
	}
}

// WithHTTPClient sets the HTTP client of network backends.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *openConfig) error {
		c.httpClient = hc
		return nil
	}
}

// WithRetry sets the retry policy of network backends.
func WithRetry(p llm.RetryPolicy) Option {
	return func(c *openConfig) error {
		c.retry = p
		return nil
	}
}

// WithStallTimeout sets the stall timeout of network backends (see
// ollama.Config.StallTimeout).
func WithStallTimeout(d time.Duration) Option {
	return func(c *openConfig) error {
		c.stallTimeout = d
		return nil
	}
}

// WithLogger sets the logger network backends report retries to.
func WithLogger(l *slog.Logger) Option {
	return func(c *openConfig) error {
		c.logger = l
		return nil
	}
}

// WithWireLog logs every HTTP request and response of network backends
// to w as JSON lines, secrets redacted (see ollama.Config.WireLog).
func WithWireLog(w io.Writer) Option {
	return func(c *openConfig) error {
		c.wireLog = w
		return nil
	}
}

// Open turns a model string into a Model. The scheme is everything before
// the first colon, so model names may contain colons:
//
//	ollama:qwen3:8b      Ollama at OLLAMA_HOST (default http://127.0.0.1:11434),
//	                     key OLLAMA_API_KEY (only Ollama's cloud needs one)
//	openai:gpt-4.1-mini  OpenAI-compatible server at OPENAI_BASE_URL
//	                     (default https://api.openai.com/v1), key OPENAI_API_KEY
//	script:session.jsonl a ScriptedModel playing the file
//
// A network model may carry options after "?": num_ctx=N sets its
// context window (ollama:qwen3:8b?num_ctx=32768), over WithNumCtx. For
// Ollama the window otherwise comes from OLLAMA_CONTEXT_LENGTH, else
// ollama.DefaultNumCtx; it is capped by the model's own maximum.
//
// Network backends are not contacted until the first call. Every example
// takes its -model flag through Open.
func Open(model string, opts ...Option) (llm.Model, error) {
	cfg := openConfig{getenv: os.Getenv}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	scheme, name, ok := strings.Cut(model, ":")
	if !ok || scheme == "" {
		return nil, fmt.Errorf("modelstr: model %q: %w", model, ErrUnknownScheme)
	}
	if name == "" {
		return nil, fmt.Errorf("modelstr: model %q: nothing after %q: name the model (e.g. ollama:qwen3:8b) or the script file", model, scheme+":")
	}
	var mo modelOptions
	if scheme == "ollama" || scheme == "openai" {
		var err error
		if name, mo, err = parseOptions(model, name); err != nil {
			return nil, err
		}
		if mo.numCtx == 0 {
			mo.numCtx = cfg.numCtx
		}
	}
	switch scheme {
	case "ollama":
		return ollama.New(ollama.Config{
			NumCtx:           mo.numCtx,
			Limits:           cfg.limits,
			EnvContextLength: cfg.getenv("OLLAMA_CONTEXT_LENGTH"),
			Host:             cfg.getenv("OLLAMA_HOST"),
			APIKey:           cfg.getenv("OLLAMA_API_KEY"),
			Model:            name,
			HTTPClient:       cfg.httpClient,
			Retry:            cfg.retry,
			StallTimeout:     cfg.stallTimeout,
			Logger:           cfg.logger,
			WireLog:          cfg.wireLog,
		})
	case "openai":
		return openai.New(openai.Config{
			ContextLength: mo.numCtx,
			Limits:        cfg.limits,
			BaseURL:       cfg.getenv("OPENAI_BASE_URL"),
			APIKey:        cfg.getenv("OPENAI_API_KEY"),
			Model:         name,
			HTTPClient:    cfg.httpClient,
			Retry:         cfg.retry,
			StallTimeout:  cfg.stallTimeout,
			Logger:        cfg.logger,
			WireLog:       cfg.wireLog,
		})
	case "script":
		m, err := scripted.Replay(name)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, fmt.Errorf("modelstr: model %q: scheme %q: %w", model, scheme, ErrUnknownScheme)
}
