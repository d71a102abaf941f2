package modelstr

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
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
}

// WithContextLength asks an Ollama model for a context window of n
// tokens (its num_ctx option); the server's default otherwise. Other
// backends size their context on the server and ignore it.
func WithContextLength(n int) Option {
	return func(c *openConfig) error {
		if n < 0 {
			return fmt.Errorf("modelstr: context length %d: must not be negative", n)
		}
		c.numCtx = n
		return nil
	}
}

// WithGetenv replaces os.Getenv for reading OLLAMA_HOST, OPENAI_BASE_URL
// and OPENAI_API_KEY, so tests need not touch the process environment.
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
	switch scheme {
	case "ollama":
		return ollama.New(ollama.Config{
			Host:         cfg.getenv("OLLAMA_HOST"),
			APIKey:       cfg.getenv("OLLAMA_API_KEY"),
			Model:        name,
			HTTPClient:   cfg.httpClient,
			Retry:        cfg.retry,
			StallTimeout: cfg.stallTimeout,
			Logger:       cfg.logger,
			WireLog:      cfg.wireLog,
			Options:      cfg.ollamaOptions(),
		})
	case "openai":
		return openai.New(openai.Config{
			BaseURL:      cfg.getenv("OPENAI_BASE_URL"),
			APIKey:       cfg.getenv("OPENAI_API_KEY"),
			Model:        name,
			HTTPClient:   cfg.httpClient,
			Retry:        cfg.retry,
			StallTimeout: cfg.stallTimeout,
			Logger:       cfg.logger,
			WireLog:      cfg.wireLog,
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

func (c openConfig) ollamaOptions() map[string]any {
	if c.numCtx == 0 {
		return nil
	}
	return map[string]any{"num_ctx": c.numCtx}
}
