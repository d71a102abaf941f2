package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/worker"
)

// Manager creates, opens, lists and deletes sessions, and gives each
// session an agent.Executor built from one Config template.
type Manager struct {
	store Store
	cfg   agent.Config
	now   func() time.Time

	worker   string        // this process's name in session leases
	leaseTTL time.Duration // how long a lease lasts without renewal

	mu   sync.Mutex
	open map[string]*Session // at most one Session value per id, so ErrBusy holds in-process

	configure func(id string, cfg *agent.Config) error // WithSessionConfig, or nil
}

// Option configures a Manager.
type Option func(*Manager) error

// WithClock sets the clock used for times (tests); nil is an error.
func WithClock(now func() time.Time) Option {
	return func(m *Manager) error {
		if now == nil {
			return errors.New("session: WithClock(nil)")
		}
		m.now = now
		return nil
	}
}

// WithSessionConfig lets the host adjust the executor configuration of
// each session as it is opened: typically to give it its own shell, so a
// `cd` or `export` in one session never reaches another (the registry
// rule: one shell per session). configure gets the session id and a copy
// of the Manager's Config; an error fails the opening.
func WithSessionConfig(configure func(id string, cfg *agent.Config) error) Option {
	return func(m *Manager) error {
		if configure == nil {
			return errors.New("session: WithSessionConfig(nil)")
		}
		m.configure = configure
		return nil
	}
}

// NewManager returns a Manager storing sessions in store and running
// them with executors configured by cfg. For undo after a restart or from
// another worker, cfg.Checkpoints should be a checkpoint.Manager on a
// persistent store beside the sessions' (checkpoint/sqlitestore on the same
// file, checkpoint/pgstore on the same database); Config.Session is set
// per session, and
// Config.Sink, when set, receives every event after it was persisted.
func NewManager(store Store, cfg agent.Config, opts ...Option) (*Manager, error) {
	if store == nil {
		return nil, errors.New("session: NewManager: nil Store; use NewMemoryStore, sqlitestore.Open or pgstore.Open")
	}
	if _, err := agent.New(cfg); err != nil { // report a bad config now, not at the first turn
		return nil, err
	}
	if cfg.Checkpoints == nil && cfg.Workspace != nil {
		// One manager for every session, so that Delete finds their
		// checkpoints; in memory, undo works while the process lives.
		var opts []checkpoint.Option
		if cfg.Logger != nil {
			opts = append(opts, checkpoint.WithLogger(cfg.Logger))
		}
		cp, err := checkpoint.New(cfg.Workspace, checkpoint.NewMemoryStore(), opts...)
		if err != nil {
			return nil, fmt.Errorf("session: in-memory checkpoints: %w", err)
		}
		cfg.Checkpoints = cp
	}
	m := &Manager{store: store, cfg: cfg, now: time.Now, worker: worker.DefaultName(), leaseTTL: DefaultLeaseTTL, open: map[string]*Session{}}
	for _, o := range opts {
		if err := o(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Store returns the manager's store.
func (m *Manager) Store() Store { return m.store }

// Create starts a new session.
func (m *Manager) Create(ctx context.Context, title string) (*Session, error) {
	now := m.now()
	info := Info{ID: newID(), Title: title, Workspace: m.root(), Created: now, Updated: now}
	if err := m.store.Create(ctx, info); err != nil {
		return nil, err
	}
	return m.session(info.ID)
}

// Open resumes a session, in this process or after a restart: the next
// Run continues its conversation and memory, and its checkpoints (when
// the Config's checkpoint store is persistent) can still be undone.
func (m *Manager) Open(ctx context.Context, id string) (*Session, error) {
	info, err := m.store.Info(ctx, id)
	if err != nil {
		return nil, err
	}
	if info.Workspace != m.root() {
		return nil, fmt.Errorf("%w: session %q works in %q, this manager in %q; open it with a Manager for that workspace", ErrOtherWorkspace, id, info.Workspace, m.root())
	}
	return m.session(id)
}

// root is the workspace root the manager's sessions work in.
func (m *Manager) root() string {
	if m.cfg.Workspace == nil {
		return ""
	}
	return m.cfg.Workspace.Root()
}

func (m *Manager) session(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.open[id]; ok {
		return s, nil
	}
	cfg := m.cfg
	cfg.Session = id
	s := &Session{m: m, id: id}
	cfg.Sink = &persistingSink{m: m, id: id, host: m.cfg.Sink}
	if m.configure != nil {
		if err := m.configure(id, &cfg); err != nil {
			return nil, fmt.Errorf("session %s: %w", id, err)
		}
	}
	x, err := agent.New(cfg)
	if err != nil {
		return nil, err
	}
	s.exec = x
	m.open[id] = s
	return s, nil
}

// List returns the sessions of the manager's workspace, most recently
// updated first; Store().List returns those of every workspace.
func (m *Manager) List(ctx context.Context) ([]Info, error) {
	all, err := m.store.List(ctx)
	if err != nil {
		return nil, err
	}
	root := m.root()
	out := all[:0]
	for _, i := range all {
		if i.Workspace == root {
			out = append(out, i)
		}
	}
	return out, nil
}

// Delete removes a session: its conversation, its event log and, when
// the Config has a checkpoint manager, its checkpoints. It fails with
// ErrBusy while a turn runs in it, in this process or another.
func (m *Manager) Delete(ctx context.Context, id string) error {
	info, err := m.store.Info(ctx, id)
	if err != nil {
		return err
	}
	if info.Workspace != m.root() {
		return fmt.Errorf("%w: session %q works in %q; delete it with a Manager for that workspace", ErrOtherWorkspace, id, info.Workspace)
	}
	m.mu.Lock()
	s := m.open[id]
	if s != nil {
		if !s.mu.TryLock() {
			m.mu.Unlock()
			return fmt.Errorf("session %q: %w", id, ErrBusy)
		}
		defer s.mu.Unlock()
		delete(m.open, id)
	}
	m.mu.Unlock()
	// A worker in another process may be running a turn in it: its lease
	// refuses the delete, as the in-process lock does above.
	now := m.now()
	if err := m.store.Lease(ctx, id, m.worker, now, now.Add(m.leaseTTL)); err != nil {
		return err
	}
	if err := m.store.Delete(ctx, id); err != nil { // the lease goes with the session
		_ = m.store.Release(context.WithoutCancel(ctx), id, m.worker)
		return err
	}
	if cp := m.cfg.Checkpoints; cp != nil {
		infos, err := cp.List(ctx, id)
		if err != nil {
			return fmt.Errorf("session %q: deleted, but its checkpoints could not be listed: %w", id, err)
		}
		var errs []error
		for _, i := range infos {
			errs = append(errs, cp.Delete(ctx, i.ID))
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("session %q: deleted, but some checkpoints remain: %w", id, err)
		}
	}
	return nil
}

// Session is one conversation: turns run one at a time, and each
// turn's events, conversation and memory are persisted.
type Session struct {
	m    *Manager
	id   string
	exec *agent.Executor
	mu   sync.Mutex // held while a turn runs or the state is rewritten
}

// ID is the session's id (also its checkpoints' session).
func (s *Session) ID() string { return s.id }

// Executor is the session's executor, for undo through
// Executor().Checkpoints().
func (s *Session) Executor() *agent.Executor { return s.exec }

// Info reads the session's info.
func (s *Session) Info(ctx context.Context) (Info, error) { return s.m.store.Info(ctx, s.id) }

// State reads the session's conversation and memory.
func (s *Session) State(ctx context.Context) (State, error) { return s.m.store.State(ctx, s.id) }

// Events yields the session's persisted events with Seq > after: a UI
// replays them after a reload and sees what it showed live.
func (s *Session) Events(ctx context.Context, after int64) iter.Seq2[StoredEvent, error] {
	return s.m.store.Events(ctx, s.id, after)
}

// Rename sets the session's title.
func (s *Session) Rename(ctx context.Context, title string) error {
	return s.m.store.Rename(ctx, s.id, title)
}

// maxTitle bounds a title taken from the first prompt.
const maxTitle = 60

// titleFrom makes a title of a prompt's first line.
func titleFrom(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(line); len(r) > maxTitle {
		line = string(r[:maxTitle-1]) + "…"
	}
	return line
}

// Run performs one turn in the session: the stored conversation and
// memory are passed to the executor, every event is persisted before the
// host's sink sees it, and the conversation and memory are saved before
// each model call after the first and when the turn ends, also when it
// failed or was cancelled, so nothing that happened is lost: a turn
// resumed after its worker was killed continues from the iterations that
// worker completed. in.History and in.Memory must be empty: the session supplies
// them. The turn holds the session's lease in the store: a worker in
// another process sharing the store gets a *LeaseError (ErrBusy) until
// the turn ends, or until the lease expires if this process dies; Run
// waits up to two seconds for such a lease first, so that a prompt sent
// the moment another worker's turn ended is not refused. A turn
// that cannot renew its lease stops, and its conversation is not saved
// over that of the worker that may hold the session now.
func (s *Session) Run(ctx context.Context, in agent.Input) (*agent.Result, error) {
	if in.History != nil || in.Memory != nil {
		return nil, errors.New("session: Run: leave Input.History and Input.Memory empty; the session supplies them")
	}
	if !s.mu.TryLock() {
		return nil, fmt.Errorf("session %q: %w", s.id, ErrBusy)
	}
	defer s.mu.Unlock()
	ctx, release, err := s.hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	st, err := s.m.store.State(ctx, s.id)
	if err != nil {
		return nil, err
	}
	in.History, in.Memory = st.Messages, st.Memory
	if info, err := s.m.store.Info(ctx, s.id); err == nil && info.Title == "" && info.Runs == 0 {
		// An untitled session is named after its first prompt, as chat
		// UIs do; a failure here must not stop the turn.
		_ = s.m.store.Rename(ctx, s.id, titleFrom(in.Prompt))
	}
	res, runErr := s.exec.Run(ctx, in)
	if res == nil {
		return nil, runErr
	}
	if cause := context.Cause(ctx); errors.Is(cause, errLeaseLost) {
		// Another worker may own the session now: saving would overwrite
		// its conversation. The turn's events are in the log.
		return res, errors.Join(runErr, fmt.Errorf("session %q: the turn's conversation was not saved: %w", s.id, cause))
	}
	saveErr := s.m.store.SaveState(context.WithoutCancel(ctx), s.id, State{Messages: res.History, Memory: res.Memory}, 1, s.m.now())
	if saveErr != nil {
		saveErr = fmt.Errorf("session %q: the turn ran but its conversation was not saved: %w", s.id, saveErr)
	}
	return res, errors.Join(runErr, saveErr)
}

// Compact summarises the older turns of the session's conversation
// with the model (see agent.Executor.Compact), saves the result, logs a
// context_compacted event and returns the summary for the host to show.
func (s *Session) Compact(ctx context.Context, opts agent.CompactOptions) (agent.Compaction, error) {
	if !s.mu.TryLock() {
		return agent.Compaction{}, fmt.Errorf("session %q: %w", s.id, ErrBusy)
	}
	defer s.mu.Unlock()
	ctx, release, err := s.hold(ctx)
	if err != nil {
		return agent.Compaction{}, err
	}
	defer release()
	st, err := s.m.store.State(ctx, s.id)
	if err != nil {
		return agent.Compaction{}, err
	}
	c, err := s.exec.Compact(ctx, st.Messages, opts)
	if err != nil {
		return c, err
	}
	if err := s.m.store.SaveState(ctx, s.id, State{Messages: c.History, Memory: st.Memory}, 0, s.m.now()); err != nil {
		return c, err
	}
	ev := event.ContextCompacted{Reason: "host", TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter,
		Summarized: c.Summarized, Kept: c.Kept, Summary: c.Summary, Fallback: c.Fallback}
	if _, err := s.m.store.AppendEvent(ctx, s.id, s.m.now(), ev); err != nil {
		return c, err
	}
	if h := s.m.cfg.Sink; h != nil {
		if err := h.Emit(ctx, ev); err != nil {
			return c, err
		}
	}
	return c, nil
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ses_" + hex.EncodeToString(b[:])
}
