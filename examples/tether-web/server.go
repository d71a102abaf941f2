package main

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/approval/pgapproval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
	"github.com/tetherdev/tether/tools/pdftools"
)

//go:embed static
var staticFiles embed.FS

// server is the web host: sessions and their executors, the live event
// logs the pages read, the approvals waiting for an answer and the runs
// that can be stopped.
type server struct {
	addr      string
	guard     *guard
	ws        *safety.Workspace
	sessions  *session.Manager
	closers   []func() error
	approvals *approvals
	board     *pgapproval.Board // with a PostgreSQL -db: approvals shared between processes
	logger    *slog.Logger
	baseCtx   context.Context
	closeOnce sync.Once

	mu        sync.Mutex
	logs      map[string]*liveLog           // by session id, once opened
	runs      map[string]context.CancelFunc // by session id, while a turn runs
	wg        sync.WaitGroup                // running turns; Add only under mu and before closing
	closing   bool                          // set by stopRuns: no new turns
	modes     []string                      // the modes a prompt may ask for: built-in and the settings'
	saved     []string                      // allow rules saved from cards since start, for sessions opened next
	model     llm.Model                     // asked whether it takes images
	modelName string                        // as the user named it, for errors

}

var errClosing = errors.New("the server is shutting down; no new turns")

// sessionKey carries the session id from startTurn to the shared sink.
type sessionKey struct{}

func newServer(ctx context.Context, o options, addr string, logger *slog.Logger) (*server, error) {
	mopts := []modelstr.Option{modelstr.WithLogger(logger)}
	wire, err := hostcfg.OpenWireLog(o.wireLog)
	if err != nil {
		return nil, err
	}
	if wire != nil {
		mopts = append(mopts, modelstr.WithWireLog(wire))
	}
	set := o.set
	set.Model = o.model
	model, err := hostcfg.OpenModel(set, mopts...)
	if err != nil {
		if wire != nil {
			wire.Close()
		}
		return nil, err
	}
	ws, err := safety.OpenWorkspace(o.workspace, append(o.folders.Options(), hostcfg.WorkspaceOptions(o.set)...)...)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	s := &server{addr: addr, ws: ws, logger: logger, baseCtx: ctx, model: model, modelName: set.Model,
		modes: append(slices.Clone(settings.BuiltinModes), slices.Sorted(maps.Keys(o.set.Modes))...),
		logs:  map[string]*liveLog{}, runs: map[string]context.CancelFunc{}}
	s.closers = append(s.closers, ws.Close)
	if wire != nil {
		s.closers = append(s.closers, wire.Close)
	}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()

	reg := &tools.Registry{}
	// Every command in a kill domain.
	bopts := builtin.Options{Contain: true}
	switch o.set.Sandbox { // off unless asked for, as in coder: a person sees every command
	case "on":
		bopts.Sandbox = ws.NewSandbox(o.folders.Dirs()...)
	case "auto":
		sb := ws.NewSandbox(o.folders.Dirs()...)
		sb.BestEffort, sb.Logger = true, logger
		bopts.Sandbox = sb
	}
	shell, err := builtin.Register(reg, ws, bopts)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if err := reg.Register(pdftools.NewRead(ws)); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if o.mcpConfig != "" {
		servers, err := mcpmount.Mount(ctx, o.mcpConfig, ws, reg, logger)
		if err != nil {
			return nil, fmt.Errorf("-mcp-config: %w", err)
		}
		s.closers = append(s.closers, servers.Close)
	}
	stopServers, err := hostcfg.Tools(ctx, o.set, ws, reg, logger)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() error { stopServers(); return nil })
	cpStore, sessStore, err := s.openStores(ctx, o.db)
	if err != nil {
		return nil, err
	}
	cps, err := checkpoint.New(ws, cpStore, checkpoint.WithLogger(logger))
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	// What a killed previous process left (a command cut off, a torn
	// write) is settled before a session touches the workspace; calls
	// still running in another live process are left to it.
	if rec, err := cps.Recover(ctx); err != nil {
		return nil, fmt.Errorf("checkpoints: recovering an interrupted run: %w", err)
	} else if len(rec) > 0 {
		logger.Warn("web: recovered runs interrupted by a crash", "checkpoints", len(rec))
	}
	rules := o.set.CommandRules()
	rules.Logger = logger
	if isPostgres(o.db) {
		// Cards are shared with the other web processes on the database,
		// so a turn running in one is answered from the page of any.
		if s.board, err = pgapproval.Open(ctx, o.db, pgapproval.WithLogger(logger)); err != nil {
			return nil, fmt.Errorf("approvals: %w", err)
		}
		s.closers = append(s.closers, s.board.Close)
	}
	s.approvals = newApprovals(o.approvalTimeout, s.board, logger, s.saveRule)
	cfg := agent.Config{
		Model:           model,
		Tools:           reg,
		Workspace:       ws,
		CommandDir:      shell.Cwd,
		CommandRules:    rules,
		Safety:          hostcfg.Safety(o.set),
		Policy:          approval.Interactive(),
		Approver:        s.approvals.approver,
		ApprovalTimeout: -1, // the Manager's own timeout applies
		Checkpoints:     cps,
		Sink:            event.SinkFunc(s.emit),
		Logger:          logger,
		ToolCalling:     agent.ToolCalling(o.set.ToolCalling),
		Modes:           hostcfg.Modes(o.set),
		Mode:            agent.Mode(o.set.Mode),
	}
	// Each session its own shell: a new one starts in the workspace root
	// with a fresh environment, whatever another session did.
	shells := hostcfg.SessionShells(ws, bopts)
	perSession := func(id string, cfg *agent.Config) error {
		cfg.CommandRules.Allow = append(slices.Clone(cfg.CommandRules.Allow), s.savedRules()...)
		return shells(id, cfg)
	}
	if s.sessions, err = session.NewManager(sessStore, cfg, session.WithSessionConfig(perSession)); err != nil {
		return nil, err
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	s.guard = &guard{token: newToken(), secret: newToken(), port: port, hosts: allowedHosts(addr), next: s.routes(), bodyTimeout: cmp.Or(o.bodyTimeout, defaultBodyTimeout)}
	ok = true
	return s, nil
}

// saveRule keeps an "always allow" answer: the rule goes into the
// project's settings, where every new coder or web process finds it, and
// into the rules of the sessions this process opens next. The session
// that asked gets the same exact grant for itself.
func (s *server) saveRule(rule string) error {
	if err := settings.SaveRule(s.ws.Root(), "allow", rule); err != nil {
		return err
	}
	s.mu.Lock()
	s.saved = append(s.saved, rule)
	s.mu.Unlock()
	s.logger.Info("web: allow rule saved to the project settings", "rule", rule, "file", settings.ProjectFile)
	return nil
}

func (s *server) savedRules() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.saved)
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static") // the directory is embedded above
	mux.Handle("GET /", http.FileServerFS(static))
	mux.HandleFunc("GET /api/sessions", s.listSessions)
	mux.HandleFunc("POST /api/sessions", s.createSession)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("POST /api/prompt", s.prompt)
	mux.HandleFunc("POST /api/cancel", s.cancel)
	mux.HandleFunc("POST /api/approve", s.approve)
	mux.HandleFunc("GET /api/changes", s.changes)
	mux.HandleFunc("POST /api/checkpoint", s.checkpointAction)
	return mux
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.guard.ServeHTTP(w, r) }

func (s *server) startURL() string { return "http://" + s.addr + "/?token=" + s.guard.token }

func (s *server) workspace() string { return s.ws.Root() }

// stopRuns cancels every running turn and waits for them to end, so no
// command outlives the server.
func (s *server) stopRuns() {
	s.mu.Lock()
	s.closing = true
	for _, cancel := range s.runs {
		cancel()
	}
	s.mu.Unlock()
	s.approvals.manager.ResolveAll(approval.Response{Choice: approval.Deny, Reason: "web: the server is shutting down"})
	s.wg.Wait()
}

// close stops the runs and closes the stores and the workspace; calls
// after the first do nothing.
func (s *server) close() {
	s.closeOnce.Do(func() {
		if s.approvals != nil {
			s.stopRuns()
		}
		for i := len(s.closers) - 1; i >= 0; i-- {
			if err := s.closers[i](); err != nil {
				s.logger.Warn("web: close", "error", err)
			}
		}
	})
}

// emit is the executors' sink, called after the session store persisted
// the event: it feeds the session's live log from the store, which is
// where the page's events come from.
func (s *server) emit(ctx context.Context, e event.Event) error {
	id, _ := ctx.Value(sessionKey{}).(string)
	// The store already holds e; a cancelled turn's last events must
	// still reach the page.
	_, err := s.liveLog(context.WithoutCancel(ctx), id)
	return err
}

// noteCard keeps the approval cards of session id in step with its
// events, wherever its turn runs: a card of a turn that is not running
// here is another process's, answered through the board.
func (s *server) noteCard(id string, e event.Event) {
	switch e := e.(type) {
	case event.ApprovalRequested:
		s.approvals.announce(e, !s.running(id))
	case event.ApprovalResolved:
		s.approvals.forget(e.ID) // also a card the Manager never saw (cancelled first)
	}
}

// liveLog returns the session's log holding at least every event stored
// so far, loading its past events the first time, so a resumed session
// shows its past turns.
func (s *server) liveLog(ctx context.Context, id string) (*liveLog, error) {
	s.mu.Lock()
	l, ok := s.logs[id]
	s.mu.Unlock()
	if !ok {
		sess, err := s.openSession(ctx, id)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		if l, ok = s.logs[id]; !ok {
			l = newLiveLog(sess, func(e event.Event) { s.noteCard(id, e) })
			s.logs[id] = l
		}
		s.mu.Unlock()
	}
	// Outside s.mu: feeding reads the store, and notes cards, which asks
	// whether a turn runs here. Another caller's feed in progress is
	// waited for, so the log is whole when this returns.
	if err := l.feed(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// startTurn runs one prompt in the session in the background. It fails
// with session.ErrBusy while another turn runs there.
func (s *server) startTurn(sess *session.Session, in agent.Input) error {
	id := sess.ID()
	l, err := s.liveLog(s.baseCtx, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errClosing
	}
	if _, busy := s.runs[id]; busy {
		s.mu.Unlock()
		return session.ErrBusy
	}
	ctx := context.WithValue(s.baseCtx, sessionKey{}, id)
	ctx, cancel := context.WithCancel(ctx)
	s.runs[id] = cancel
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.runs, id)
			s.mu.Unlock()
			cancel()
		}()
		if _, err := sess.Run(ctx, in); err != nil && !errors.Is(err, context.Canceled) {
			s.logger.Warn("web: turn failed", "session", id, "error", err)
			l.appendJSON(encodeHostError(err))
		}
	}()
	return nil
}

// running reports whether a turn runs in the session.
func (s *server) running(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.runs[id]
	return ok
}

// stopTurn cancels the session's running turn: the model stream stops,
// a running command's process group is killed, and a pending approval is
// denied. It reports whether a turn was running.
func (s *server) stopTurn(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cancel, ok := s.runs[id]
	if ok {
		cancel()
	}
	return ok
}
