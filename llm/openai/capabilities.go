package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/internal/transport"
)

// Capabilities reports what Config.Model can do. Config.Capabilities wins
// when set. Otherwise GET /models is read for what servers volunteer: the
// window the model is served with (vLLM "max_model_len", LM Studio
// "loaded_context_length", OpenRouter "context_length") and its trained
// maximum (llama.cpp "meta.n_ctx_train", LM Studio "max_context_length"),
// and, from OpenRouter's "supported_parameters", whether tools and
// reasoning are supported. llama.cpp's server runs with the context it was
// started with (-c), not the trained one, so when /models gives no served
// window its GET /props ("default_generation_settings.n_ctx") is read.
// Config.ContextLength is used where the server reports nothing, and
// lowers a larger reported window. Tools default to true (see
// Config.Capabilities). A server without these endpoints is not an error.
// Results are cached.
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
	if c.ContextLength == 0 {
		c.ContextLength = m.servedContext(ctx)
	}
	if c.ContextLength > 0 {
		c.ContextSource = llm.ContextFromServer
	}
	m.hostWindow(&c)
	return c, nil
}

func firstInt(entry gjson.Result, paths ...string) int {
	for _, p := range paths {
		if n := entry.Get(p).Int(); n > 0 {
			return int(n)
		}
	}
	return 0
}

// servedContext reads llama.cpp's GET /props (beside /v1, at the server's
// root) for the window its slots run with; 0 when the server has none.
func (m *Model) servedContext(ctx context.Context) int {
	root, ok := strings.CutSuffix(m.base, "/v1")
	if !ok || strings.Contains(root, "api.openai.com") {
		return 0
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, root+"/props", nil)
	if err != nil {
		return 0
	}
	if m.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return 0
	}
	return int(gjson.GetBytes(body, "default_generation_settings.n_ctx").Int())
}

// hostWindow applies Config.ContextLength: the window where the server
// said nothing, a lower one where it did; a larger one cannot be had and
// is warned about.
func (m *Model) hostWindow(c *llm.Capabilities) {
	n := m.cfg.ContextLength
	switch {
	case n <= 0:
	case c.ContextLength == 0 || n <= c.ContextLength:
		c.ContextLength, c.ContextSource = n, llm.ContextFromHost
	default:
		c.ContextWarning = fmt.Sprintf("the context length setting asks for %d tokens, but the server runs %s with %d; using %d", n, m.cfg.Model, c.ContextLength, c.ContextLength)
		if m.cfg.Logger != nil {
			m.cfg.Logger.Warn("openai: context window", "model", m.cfg.Model, "warning", c.ContextWarning)
		}
	}
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
		c.ContextLength = firstInt(entry, "max_model_len", "loaded_context_length", "context_length", "top_provider.context_length")
		c.MaxContextLength = firstInt(entry, "max_context_length", "meta.n_ctx_train")
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
