package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/session"
)

// ProtocolVersion is the ACP major version this agent speaks.
const ProtocolVersion = 1

// Config configures a [Server]. Open is required; the rest has defaults.
type Config struct {
	// Open builds the agent of one session, for the directory the editor
	// named in session/new or session/load. The Server fills in Sink,
	// Approver, Policy and ApprovalTimeout and adds its ToolMiddleware;
	// everything else (model, tools, workspace, checkpoints, command rules,
	// modes) is the host's.
	Open func(ctx context.Context, env SessionEnv) (*Setup, error)

	// Store keeps sessions: their conversation and event log, which
	// session/list lists and session/load replays. Nil means in memory:
	// the sessions of this process only.
	Store session.Store

	// Auth, when set, is how the backend gets its credentials; without it
	// no authentication is asked for.
	Auth *Auth

	// ApprovalTimeout is how long a permission request waits for the
	// editor's answer before it counts as a rejection; zero means 30
	// minutes.
	ApprovalTimeout time.Duration

	// Name and Version identify the agent in initialize.
	Name, Version string

	Logger *slog.Logger
}

// SessionEnv is what the editor says about a session it opens.
type SessionEnv struct {
	// Cwd is the absolute directory the session works in.
	Cwd string
	// MCPServers are the editor's MCP servers for this session; the host
	// connects them (Tether's mcp package) and adds their tools.
	MCPServers []MCPServer

	l *live // for Files
}

// MCPServer is one MCP server the editor hands the agent: a command
// (stdio) when Command is set, else a URL (Transport "http" or "sse").
type MCPServer struct {
	Name      string
	Command   string
	Args      []string
	Env       []string // KEY=value
	URL       string
	Transport string // "stdio", "http" or "sse"
	Headers   map[string]string
}

// Setup is a session's agent, built by Config.Open.
type Setup struct {
	Agent agent.Config
	// Close releases what Open started (shells, MCP servers); called when
	// the session closes or the connection ends. May be nil.
	Close func()
	// Notices are said to the person as agent messages at the start of
	// the session's first prompt, once: what the host left out of its
	// settings, say. They wait for a turn because editors show agent
	// messages only inside one.
	Notices []string
	// SaveRule, when set, makes "allow always" on a command keep the
	// command as a rule beyond the session: it returns the exact rule it
	// would save for command and where (ok false when it cannot hold just
	// this command), and save writes it. The option's name shows the
	// rule and where, so the person sees what will be written. Critical
	// actions never offer "allow always".
	SaveRule func(command string) (rule, where string, save func() error, ok bool)
}

// Auth describes how the agent authenticates to its backend.
type Auth struct {
	Methods []sdk.AuthMethod
	// Ready reports nil once the backend can be used; until then sessions
	// are refused with ACP's auth_required error carrying its message.
	Ready func() error
	// Authenticate runs the method the editor chose.
	Authenticate func(ctx context.Context, methodID string) error
}

// Server is an ACP agent: it serves one editor over one connection.
type Server struct {
	cfg    Config
	logger *slog.Logger
	conn   *conn
	base   context.Context
	// maxLine, when positive, replaces DefaultMaxMessage (tests).
	maxLine int

	mu          sync.Mutex
	initialized bool
	client      sdk.ClientCapabilities
	sessions    map[string]*live
	wg          sync.WaitGroup
}

// NewServer returns a Server for cfg.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Open == nil {
		return nil, errors.New("acp: Config.Open is required: it builds each session's agent")
	}
	if cfg.Store == nil {
		cfg.Store = session.NewMemoryStore()
	}
	if cfg.ApprovalTimeout == 0 {
		cfg.ApprovalTimeout = 30 * time.Minute
	}
	if cfg.Name == "" {
		cfg.Name = "tether"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, logger: cfg.Logger, sessions: map[string]*live{}}, nil
}

// Serve speaks ACP on r and w until r ends or ctx is cancelled; then every
// running prompt is cancelled (its commands killed) and every session
// closed. Malformed messages are answered with JSON-RPC errors and never
// end it.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.base = ctx
	s.conn = newConn(w, s.logger, s.dispatch)
	if s.maxLine > 0 {
		s.conn.maxLine = s.maxLine
	}
	errc := make(chan error, 1)
	go func() { errc <- s.conn.serve(r) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	cancel(errors.New("acp: the connection ended"))
	s.wg.Wait()
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*live{}
	s.mu.Unlock()
	for _, l := range all {
		l.close()
	}
	return err
}

// handler serves one request's params; it runs on its own goroutine.
type handler func(ctx context.Context, params json.RawMessage) (any, *RPCError)

// dispatch runs on the reading goroutine, in message order.
func (s *Server) dispatch(in inbound) {
	switch in.Method {
	case "session/cancel":
		s.cancel(in)
		return
	case "$/cancel_request":
		return // our requests are short; a prompt is cancelled with session/cancel
	case "initialize":
		// Served in order: a request sent right behind it must find the
		// connection initialized.
		if in.ID == nil {
			return
		}
		res, rerr := s.initialize(s.base, in.Params)
		if rerr != nil {
			s.conn.replyError(in.ID, rerr)
		} else {
			s.conn.reply(in.ID, res)
		}
		return
	case "session/prompt":
		// Admitted here, in order, so that a session/cancel read after it
		// finds it registered.
		s.admitPrompt(in)
		return
	}
	h, needsInit := s.route(in.Method)
	if h == nil {
		if in.ID == nil {
			s.logger.Debug("acp: ignored an unknown notification", "method", in.Method)
			return
		}
		s.conn.replyError(in.ID, rpcErrorf(CodeMethodNotFound, "method not found: %q", in.Method))
		return
	}
	if in.ID == nil {
		s.logger.Warn("acp: a request sent as a notification was ignored", "method", in.Method)
		return
	}
	if needsInit && !s.isInitialized() {
		s.conn.replyError(in.ID, rpcErrorf(CodeInvalidRequest, "%s before initialize: send initialize first", in.Method))
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		res, rerr := h(s.base, in.Params)
		if rerr != nil {
			s.conn.replyError(in.ID, rerr)
			return
		}
		s.conn.reply(in.ID, res)
		if a, ok := res.(afterReply); ok && a.after != nil {
			a.after()
		}
	}()
}

// route names the handler of a method and whether it needs initialize
// first.
func (s *Server) route(method string) (handler, bool) {
	switch method {
	case "authenticate":
		return s.authenticate, true
	case "session/new":
		return s.newSession, true
	case "session/load":
		return s.loadSession, true
	case "session/list":
		return s.listSessions, true
	case "session/resume":
		return s.resumeSession, true
	case "session/close":
		return s.closeSession, true
	case "session/set_mode":
		return s.setMode, true
	}
	return nil, false
}

func (s *Server) isInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// decode reads params into v, naming what was wrong.
func decode(params json.RawMessage, v any) *RPCError {
	if len(params) == 0 || isNull(params) {
		return rpcErrorf(CodeInvalidParams, "invalid params: the params object is missing")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return rpcErrorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

func (s *Server) initialize(_ context.Context, params json.RawMessage) (any, *RPCError) {
	var req struct {
		ProtocolVersion    json.RawMessage `json:"protocolVersion"`
		ClientCapabilities json.RawMessage `json:"clientCapabilities"`
	}
	if e := decode(params, &req); e != nil {
		return nil, e
	}
	var v int
	if err := json.Unmarshal(req.ProtocolVersion, &v); err != nil {
		return nil, rpcErrorf(CodeInvalidParams, `invalid params: "protocolVersion" must be an integer (this agent speaks %d)`, ProtocolVersion)
	}
	// The capabilities are read leniently: a field of the wrong type
	// counts as absent (the schema's defaults), never as an error.
	var caps sdk.ClientCapabilities
	if len(req.ClientCapabilities) > 0 {
		var fsCaps struct {
			Fs struct {
				Read  json.RawMessage `json:"readTextFile"`
				Write json.RawMessage `json:"writeTextFile"`
			} `json:"fs"`
		}
		_ = json.Unmarshal(req.ClientCapabilities, &fsCaps)
		caps.Fs.ReadTextFile = string(fsCaps.Fs.Read) == "true"
		caps.Fs.WriteTextFile = string(fsCaps.Fs.Write) == "true"
	}
	s.mu.Lock()
	s.initialized = true
	s.client = caps
	s.mu.Unlock()
	ac := sdk.AgentCapabilities{
		LoadSession:        true,
		PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
		McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
		SessionCapabilities: sdk.SessionCapabilities{
			Close:  &sdk.SessionCloseCapabilities{},
			List:   &sdk.SessionListCapabilities{},
			Resume: &sdk.SessionResumeCapabilities{},
		},
	}
	methods := []sdk.AuthMethod{}
	if s.cfg.Auth != nil {
		methods = s.cfg.Auth.Methods
	}
	// Version negotiation: the agent answers with the version it speaks
	// when it does not speak the one asked for; the client decides.
	return sdk.InitializeResponse{
		ProtocolVersion:   ProtocolVersion,
		AgentCapabilities: ac,
		AgentInfo:         &sdk.Implementation{Name: s.cfg.Name, Version: s.cfg.Version},
		AuthMethods:       methods,
	}, nil
}

func (s *Server) authenticate(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var req sdk.AuthenticateRequest
	if e := decode(params, &req); e != nil {
		return nil, e
	}
	if s.cfg.Auth == nil || s.cfg.Auth.Authenticate == nil {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: this agent offers no authentication method (its backend needs none)")
	}
	if err := s.cfg.Auth.Authenticate(ctx, string(req.MethodId)); err != nil {
		return nil, &RPCError{Code: CodeAuthRequired, Message: "authentication failed: " + err.Error()}
	}
	return sdk.AuthenticateResponse{}, nil
}

// authRequired is non-nil while the backend cannot be used.
func (s *Server) authRequired() *RPCError {
	if s.cfg.Auth == nil || s.cfg.Auth.Ready == nil {
		return nil
	}
	if err := s.cfg.Auth.Ready(); err != nil {
		return &RPCError{Code: CodeAuthRequired, Message: "authentication required: " + err.Error()}
	}
	return nil
}

// session returns a live session by id.
func (s *Server) session(id string) (*live, *RPCError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.sessions[id]
	if !ok {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: no open session %q; create one with session/new or open it with session/load", id)
	}
	return l, nil
}

// update sends one session/update notification.
func (s *Server) update(id string, u sdk.SessionUpdate) {
	if err := s.conn.notify("session/update", sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u}); err != nil {
		s.logger.Warn("acp: sending session/update", "err", err)
	}
}

func errorf(format string, args ...any) *RPCError {
	return &RPCError{Code: CodeInternalError, Message: fmt.Sprintf(format, args...)}
}
