package storetest

import (
	"context"
	"io"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
)

// Agent is an agent configuration for store tests: a workspace in
// dir/ws, the read and write file tools, checkpoints in the given store
// and a scripted model.
type Agent struct {
	Workspace *safety.Workspace
	Model     *llmtest.ScriptedModel
	Config    agent.Config
}

// NewAgent builds an Agent whose model plays script (JSON lines).
func NewAgent(t testing.TB, dir string, cps checkpoint.Store, script string) *Agent {
	t.Helper()
	root := filepath.Join(dir, "ws")
	require.NoError(t, os.MkdirAll(root, 0o755))
	ws, err := safety.OpenWorkspace(root)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := &tools.Registry{}
	require.NoError(t, reg.Register(fstools.NewRead(ws), fstools.NewWrite(ws)))
	s, err := llmtest.ParseScript(strings.NewReader(script))
	require.NoError(t, err)
	cpm, err := checkpoint.New(ws, cps)
	require.NoError(t, err)
	m := llmtest.NewScripted(s)
	return &Agent{Workspace: ws, Model: m, Config: agent.Config{Model: m, Tools: reg, Workspace: ws, Checkpoints: cpm,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
}

// hangAfter plays m for its first n calls, then blocks every later call
// until its context ends, after calling onHang: a model in the middle of a
// long answer, the moment a worker is killed in.
func hangAfter(m *llmtest.ScriptedModel, n int, onHang func()) llm.Model {
	return &hangingModel{ScriptedModel: m, n: n, onHang: onHang}
}

// hangingModel keeps the scripted model's Capabilities, so that the agent
// calls tools natively as it would with the script alone.
type hangingModel struct {
	*llmtest.ScriptedModel
	n      int
	calls  int
	onHang func()
}

func (h *hangingModel) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	h.calls++
	if h.calls <= h.n {
		return h.ScriptedModel.Chat(ctx, req)
	}
	return func(yield func(llm.Chunk, error) bool) {
		h.onHang()
		<-ctx.Done()
		yield(llm.Chunk{}, context.Cause(ctx))
	}
}
