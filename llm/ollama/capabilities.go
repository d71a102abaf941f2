package ollama

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/internal/transport"
)

// Capabilities reports what Config.Model can do, from /api/show: its
// "capabilities" list ("tools", "thinking", "vision") and its trained
// context from model_info ("<arch>.context_length"), reported as
// MaxContextLength. ContextLength is the window every chat request asks
// for as num_ctx (see Config.NumCtx), lowered to the trained maximum;
// when the host or the environment asked for more, ContextWarning says so
// and the Logger is told once. A model without "tools" reports
// Tools=false, so the agent can switch to tool calls written in text
// instead of failing. Results are cached.
func (m *Model) Capabilities(ctx context.Context) (llm.Capabilities, error) {
	return m.CapabilitiesOf(ctx, m.cfg.Model)
}

// CapabilitiesOf is Capabilities for another model on the same server.
func (m *Model) CapabilitiesOf(ctx context.Context, model string) (llm.Capabilities, error) {
	if model == "" {
		return llm.Capabilities{}, fmt.Errorf("ollama: no model name: set Config.Model")
	}
	m.mu.Lock()
	c, ok := m.caps[model]
	m.mu.Unlock()
	if ok {
		return c, nil
	}
	tctx, rec := transport.Track(ctx)
	resp, err := m.client.Show(tctx, &api.ShowRequest{Model: model})
	if err != nil {
		return llm.Capabilities{}, m.callError(ctx, err, rec, model, "/api/show")
	}
	c = capabilities(resp)
	applyWindow(&c, chooseContext(m.cfg), c.ContextLength, model)
	m.mu.Lock()
	if _, seen := m.caps[model]; !seen && c.ContextWarning != "" && m.cfg.Logger != nil {
		m.cfg.Logger.Warn("ollama: context window", "model", model, "num_ctx", c.ContextLength, "warning", c.ContextWarning)
	}
	if m.caps == nil {
		m.caps = make(map[string]llm.Capabilities)
	}
	m.caps[model] = c
	m.mu.Unlock()
	return c, nil
}

func capabilities(resp *api.ShowResponse) llm.Capabilities {
	var c llm.Capabilities
	for _, cap := range resp.Capabilities {
		switch strings.ToLower(string(cap)) {
		case "tools":
			c.Tools = true
		case "thinking":
			c.Thinking = true
		case "vision":
			c.Vision = true
		}
	}
	// Deterministic choice when several keys match (a vision projector can
	// have its own): the architecture's key first, then any other.
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	keys := make([]string, 0, len(resp.ModelInfo))
	for k := range resp.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if i := slices.Index(keys, arch+".context_length"); i > 0 {
		keys[0], keys[i] = keys[i], keys[0]
	}
	for _, k := range keys {
		if n, ok := asInt(resp.ModelInfo[k]); ok && n > 0 {
			c.ContextLength = n
			break
		}
	}
	return c
}

// hasNumCtx reports whether a request sets num_ctx itself.
func hasNumCtx(opts map[string]any) bool {
	_, ok := opts["num_ctx"]
	return ok
}

func numCtx(opts map[string]any) (int, bool) {
	n, ok := asInt(opts["num_ctx"])
	return n, ok && n > 0
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}

// ModelInfo describes an installed model, from /api/tags.
type ModelInfo struct {
	Name          string
	Size          int64
	ModifiedAt    time.Time
	Family        string
	ParameterSize string
	Quantization  string
}

// List returns the models installed on the server.
func (m *Model) List(ctx context.Context) ([]ModelInfo, error) {
	tctx, rec := transport.Track(ctx)
	resp, err := m.client.List(tctx)
	if err != nil {
		return nil, m.callError(ctx, err, rec, "", "/api/tags")
	}
	out := make([]ModelInfo, 0, len(resp.Models))
	for _, r := range resp.Models {
		out = append(out, ModelInfo{
			Name: r.Name, Size: r.Size, ModifiedAt: r.ModifiedAt,
			Family: r.Details.Family, ParameterSize: r.Details.ParameterSize, Quantization: r.Details.QuantizationLevel,
		})
	}
	return out, nil
}

// callError maps the error of a non-streaming call.
func (m *Model) callError(ctx context.Context, err error, rec *transport.Record, model, path string) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if se := m.statusError(rec, model); se != nil {
		return se
	}
	if cerr := rec.ConnErr(); cerr != nil {
		return fmt.Errorf("ollama: cannot reach %s after %d attempt(s): %w (is `ollama serve` running? OLLAMA_HOST sets the address)", m.base, rec.Attempts(), cerr)
	}
	return fmt.Errorf("ollama: %s: %w", path, err)
}
