package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/llm"
)

// DefaultNumCtx is the context window asked for when neither the host
// (Config.NumCtx, num_ctx in Config.Options) nor the environment
// (Config.EnvContextLength) chooses one. Ollama's own default is 4096
// tokens on machines with less than 24 GiB of VRAM, smaller than an
// agent's first request; its documentation asks for 64k for agents, but
// 64k of an 8B model's KV cache does not fit beside the weights on a
// 16 GiB laptop, while 32k does and holds a working session.
const DefaultNumCtx = 32768

// contextChoice is the window asked for before the model's maximum is
// known, and who chose it.
type contextChoice struct {
	n      int
	source llm.ContextSource
	note   string // why an environment value was ignored, or ""
}

// chooseContext applies the order host setting → environment → default.
func chooseContext(cfg Config) contextChoice {
	if cfg.NumCtx > 0 {
		return contextChoice{n: cfg.NumCtx, source: llm.ContextFromHost}
	}
	if n, ok := numCtx(cfg.Options); ok {
		return contextChoice{n: n, source: llm.ContextFromHost}
	}
	if v := strings.TrimSpace(cfg.EnvContextLength); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil && n > 0 {
			return contextChoice{n: n, source: llm.ContextFromEnv}
		}
		return contextChoice{n: DefaultNumCtx, source: llm.ContextFromDefault,
			note: fmt.Sprintf("OLLAMA_CONTEXT_LENGTH=%q is not a positive number of tokens; using %d (write e.g. OLLAMA_CONTEXT_LENGTH=32768)", v, DefaultNumCtx)}
	}
	return contextChoice{n: DefaultNumCtx, source: llm.ContextFromDefault}
}

// applyWindow fills c's context fields from the choice and the model's
// trained maximum (0 when /api/show did not say), lowering the window to
// that maximum as the server would, and warning when the host or the
// environment asked for more.
func applyWindow(c *llm.Capabilities, ch contextChoice, trained int, model string) {
	c.MaxContextLength = trained
	c.ContextLength, c.ContextSource = ch.n, ch.source
	c.ContextWarning = ch.note
	if trained > 0 && ch.n > trained {
		c.ContextLength = trained
		if ch.source != llm.ContextFromDefault {
			c.ContextWarning = fmt.Sprintf("%s asked for a %d-token context, but %s supports at most %d; using %d",
				sourceName(ch.source), ch.n, model, trained, trained)
		}
	}
}

func sourceName(s llm.ContextSource) string {
	if s == llm.ContextFromEnv {
		return "OLLAMA_CONTEXT_LENGTH"
	}
	return "the num_ctx setting"
}

// window is the num_ctx to send for model: the requested window capped by
// the model's maximum, read once from /api/show. A server that has no
// /api/show (a proxy exposing only /api/chat) gets the window uncapped;
// a missing model or a refused key is the chat's error, said once.
func (m *Model) window(ctx context.Context, model string) (int, error) {
	c, err := m.CapabilitiesOf(ctx, model)
	if err == nil {
		return c.ContextLength, nil
	}
	var se *llm.StatusError
	if errors.As(err, &se) && se.Kind == nil && (se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusMethodNotAllowed || se.StatusCode == http.StatusNotImplemented) {
		return chooseContext(m.cfg).n, nil
	}
	return 0, err
}
