package session

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
)

type fixture struct {
	ws    *safety.Workspace
	model *llmtest.ScriptedModel
	cps   *checkpoint.Manager
	cfg   agent.Config
}

// newFixture opens a workspace in dir/ws and a config whose checkpoints
// live in store; the model plays script.
func newFixture(t *testing.T, dir string, cpStore checkpoint.Store, script string) *fixture {
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
	cps, err := checkpoint.New(ws, cpStore)
	require.NoError(t, err)
	m := llmtest.NewScripted(s)
	return &fixture{ws: ws, model: m, cps: cps, cfg: agent.Config{Model: m, Tools: reg, Workspace: ws, Checkpoints: cps,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
}

// sinkRecorder keeps the events the host's sink sees.
type sinkRecorder struct {
	mu  sync.Mutex
	evs []event.Event
}

func (r *sinkRecorder) Emit(_ context.Context, e event.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
	return nil
}

func TestManagerRunsAndPersists(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), `{"tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"one\n"}}]}
{"content":"Wrote a.txt. [TASK_COMPLETE]"}
{"content":"It says one. [TASK_COMPLETE]"}`)
	host := &sinkRecorder{}
	f.cfg.Sink = host
	mgr, err := NewManager(NewMemoryStore(), f.cfg)
	require.NoError(t, err)
	s, err := mgr.Create(ctx, "Files")
	require.NoError(t, err)

	r1, err := s.Run(ctx, agent.Input{Prompt: "create a.txt saying one"})
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, r1.StopReason)
	_, err = s.Run(ctx, agent.Input{Prompt: "what does it say?"})
	require.NoError(t, err)

	// The second turn saw the first.
	req := f.model.Requests()[2]
	require.Equal(t, "create a.txt saying one", req.Messages[1].Content)
	require.Contains(t, req.Messages[0].Content, "Files written: a.txt", "the memory was carried over")

	// The log holds exactly what the host saw, in order.
	var logged []event.Event
	for se, err := range s.Events(ctx, 0) {
		require.NoError(t, err)
		logged = append(logged, se.Event)
	}
	require.Equal(t, host.evs, logged)

	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, info.Runs)
	require.Equal(t, "Files", info.Title)

	// A session runs one turn at a time.
	require.True(t, s.mu.TryLock())
	_, err = s.Run(ctx, agent.Input{Prompt: "x"})
	require.ErrorIs(t, err, ErrBusy)
	require.ErrorIs(t, mgr.Delete(ctx, s.ID()), ErrBusy)
	s.mu.Unlock()
	_, err = s.Run(ctx, agent.Input{Prompt: "x", History: []llm.Message{{Role: llm.RoleUser}}})
	require.Error(t, err)

	// Delete removes the session and its checkpoints.
	cps, err := f.cps.List(ctx, s.ID())
	require.NoError(t, err)
	require.Len(t, cps, 1)
	require.NoError(t, mgr.Delete(ctx, s.ID()))
	cps, err = f.cps.List(ctx, s.ID())
	require.NoError(t, err)
	require.Empty(t, cps)
	list, err := mgr.List(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
	_, err = mgr.Open(ctx, s.ID())
	require.ErrorIs(t, err, ErrNotFound)
}

// TestSessionCompact: the host compacts a session; the new history is
// saved and the summary logged.
func TestSessionCompact(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("line of the file\n", 2000)
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), `{"tool_calls":[{"name":"read_file","arguments":{"path":"big.txt"}}]}
{"content":"It is a long file. [TASK_COMPLETE]"}
{"content":"Earlier the agent read big.txt, a long file."}`)
	require.NoError(t, os.WriteFile(filepath.Join(f.ws.Root(), "big.txt"), []byte(long), 0o644))
	f.cfg.Compaction = agent.CompactionConfig{ContextLength: 4000}
	mgr, err := NewManager(NewMemoryStore(), f.cfg)
	require.NoError(t, err)
	s, err := mgr.Create(ctx, "")
	require.NoError(t, err)
	_, err = s.Run(ctx, agent.Input{Prompt: "what is big.txt?"})
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.Equal(t, "what is big.txt?", info.Title, "an untitled session is named after its first prompt")

	c, err := s.Compact(ctx, agent.CompactOptions{Task: -1})
	require.NoError(t, err)
	require.Equal(t, "Earlier the agent read big.txt, a long file.", c.Summary)
	st, err := s.State(ctx)
	require.NoError(t, err)
	require.Equal(t, c.History, st.Messages)
	require.Equal(t, "what is big.txt?", st.Messages[1].Content, "the task stays verbatim")
	var last event.Event
	for se, err := range s.Events(ctx, 0) {
		require.NoError(t, err)
		last = se.Event
	}
	cc, ok := last.(event.ContextCompacted)
	require.True(t, ok)
	require.Equal(t, "host", cc.Reason)
}

// failingStore fails to persist events after the first n.
type failingStore struct {
	*MemoryStore
	n int
}

func (f *failingStore) AppendEvent(ctx context.Context, id string, at time.Time, ev event.Event) (int64, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return f.MemoryStore.AppendEvent(ctx, id, at, ev)
}

// TestUnpersistedEventStopsTheTurn: an event that cannot be stored is
// not followed by actions nobody will see; what happened is saved.
func TestUnpersistedEventStopsTheTurn(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), `{"content":"Let me write it.","tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"x"}}]}
{"content":"Done. [TASK_COMPLETE]"}`)
	host := &sinkRecorder{}
	f.cfg.Sink = host
	store := &failingStore{MemoryStore: NewMemoryStore(), n: 1}
	mgr, err := NewManager(store, f.cfg)
	require.NoError(t, err)
	s, err := mgr.Create(ctx, "t")
	require.NoError(t, err)
	res, err := s.Run(ctx, agent.Input{Prompt: "write a.txt"})
	require.ErrorIs(t, err, agent.ErrSink)
	require.ErrorContains(t, err, "disk full")
	require.NoFileExists(t, filepath.Join(f.ws.Root(), "a.txt"), "no action after an unrecorded event")
	require.Len(t, host.evs, 1, "the host sees only what was persisted")
	st, err := s.State(ctx)
	require.NoError(t, err)
	require.Equal(t, res.History, st.Messages, "the conversation so far is saved")
}

// TestManagersShareAStore: two workspaces share one database; each
// manager lists, opens and deletes only its own sessions.
func TestManagersShareAStore(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryStore()
	fa := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), "")
	fb := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), "")
	ma, err := NewManager(store, fa.cfg)
	require.NoError(t, err)
	mb, err := NewManager(store, fb.cfg)
	require.NoError(t, err)
	sa, err := ma.Create(ctx, "in a")
	require.NoError(t, err)
	_, err = mb.Create(ctx, "in b")
	require.NoError(t, err)

	la, err := ma.List(ctx)
	require.NoError(t, err)
	require.Len(t, la, 1)
	require.Equal(t, "in a", la[0].Title)
	require.Equal(t, fa.ws.Root(), la[0].Workspace)
	all, err := store.List(ctx)
	require.NoError(t, err)
	require.Len(t, all, 2)

	_, err = mb.Open(ctx, sa.ID())
	require.ErrorIs(t, err, ErrOtherWorkspace)
	require.ErrorIs(t, mb.Delete(ctx, sa.ID()), ErrOtherWorkspace)
	_, err = ma.Open(ctx, sa.ID())
	require.NoError(t, err)
}

// WithSessionConfig adjusts each session's executor as it opens: here,
// each session gets its own registry, as a host gives each its shell.
func TestWithSessionConfig(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), `{"content":"one [TASK_COMPLETE]"}
{"content":"two [TASK_COMPLETE]"}`)
	var opened []string
	regs := map[string]*tools.Registry{}
	mgr, err := NewManager(NewMemoryStore(), f.cfg, WithSessionConfig(func(id string, cfg *agent.Config) error {
		opened = append(opened, id)
		cfg.Tools = cfg.Tools.Filter(func(tools.Spec) bool { return true })
		regs[id] = cfg.Tools
		return nil
	}))
	require.NoError(t, err)
	a, err := mgr.Create(ctx, "A")
	require.NoError(t, err)
	b, err := mgr.Create(ctx, "B")
	require.NoError(t, err)
	_, err = a.Run(ctx, agent.Input{Prompt: "x"})
	require.NoError(t, err)
	_, err = b.Run(ctx, agent.Input{Prompt: "y"})
	require.NoError(t, err)
	require.Equal(t, []string{a.ID(), b.ID()}, opened)
	require.NotSame(t, regs[a.ID()], regs[b.ID()])

	_, err = NewManager(NewMemoryStore(), f.cfg, WithSessionConfig(nil))
	require.Error(t, err)
	failing, err := NewManager(NewMemoryStore(), f.cfg, WithSessionConfig(func(string, *agent.Config) error { return errors.New("no shell") }))
	require.NoError(t, err)
	_, err = failing.Create(ctx, "C")
	require.ErrorContains(t, err, "no shell")
}
