package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/internal/transport"
)

// Capabilities reports what Config.Model can do. Config.Capabilities wins
// when set. Otherwise GET /models is read for what servers volunteer:
// context length (vLLM "max_model_len", OpenRouter "context_length",
// llama.cpp "meta.n_ctx_train", LM Studio "max_context_length") and, from
// OpenRouter's "supported_parameters", whether tools and reasoning are
// supported. Tools default to true (see Config.Capabilities). A server
// without a /models endpoint is not an error. Results are cached.
func (m *Model) Capabilities(ctx context.Context) (llm.Capabilities, error) {
	if m.cfg.Capabilities != nil {
		return *m.cfg.Capabilities, nil
	}
	model := m.cfg.Model
	m.mu.Lock()
	c, ok := m.caps[model]
	m.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := m.discover(ctx, model)
	if err != nil {
		return llm.Capabilities{}, err
	}
	m.mu.Lock()
	if m.caps == nil {
		m.caps = make(map[string]llm.Capabilities)
	}
	m.caps[model] = c
	m.mu.Unlock()
	return c, nil
}

func (m *Model) discover(ctx context.Context, model string) (llm.Capabilities, error) {
	c := llm.Capabilities{Tools: true}
	tctx, rec := transport.Track(ctx)
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, m.base+"/models", nil)
	if err != nil {
		return c, err
	}
	req.Header.Set("Accept", "application/json")
	if m.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	resp, err := m.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return c, context.Cause(ctx)
		}
		return c, fmt.Errorf("openai: cannot reach %s after %d attempt(s): %w", m.base, rec.Attempts(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return c, fmt.Errorf("openai: reading %s/models: %w", m.base, err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return c, m.statusError(rec)
	case resp.StatusCode >= 400:
		return c, nil // no listing: nothing to learn, nothing wrong
	}
	for _, entry := range gjson.GetBytes(body, "data").Array() {
		if entry.Get("id").String() != model {
			continue
		}
		for _, path := range []string{"max_model_len", "context_length", "max_context_length", "loaded_context_length", "meta.n_ctx_train", "top_provider.context_length"} {
			if n := entry.Get(path).Int(); n > 0 {
				c.ContextLength = int(n)
				break
			}
		}
		if sp := entry.Get("supported_parameters"); sp.IsArray() {
			c.Tools = false
			for _, p := range sp.Array() {
				switch p.String() {
				case "tools":
					c.Tools = true
				case "reasoning", "include_reasoning":
					c.Thinking = true
				}
			}
		}
		for _, mod := range entry.Get("architecture.input_modalities").Array() {
			if mod.String() == "image" {
				c.Vision = true
			}
		}
	}
	return c, nil
}
