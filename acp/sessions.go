package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/approval"
)

// live is an open session: its agent, its turn and what the editor
// chose in it.
type live struct {
	s     *Server
	id    string
	cwd   string
	setup *Setup
	sess  *session.Session
	modes []agent.ModeSpec
	tr    *translator

	mu          sync.Mutex
	mode        agent.Mode
	running     context.CancelCauseFunc // the prompt's, nil between prompts
	turn        context.Context         // the running prompt's context, nil between prompts
	checkpoints []string                // the turns' checkpoints, for /undo, oldest first
	rejected    map[string]bool         // rules answered reject_always
	noticed     bool                    // Setup.Notices were said
	closed      bool
}

func (l *live) close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	if l.running != nil {
		l.running(errors.New("acp: the session was closed"))
	}
	l.mu.Unlock()
	if l.setup != nil && l.setup.Close != nil {
		l.setup.Close()
	}
}

// builtinModes are Tether's own modes, offered as ACP session modes.
var builtinModes = []struct {
	mode agent.Mode
	name string
	desc string
}{
	{agent.ModeAgent, "Agent", "Reads, edits and runs commands, asking before risky actions"},
	{agent.ModeExplore, "Explore", "Reads and searches only; changes nothing"},
	{agent.ModePlan, "Plan", "Reads the code and writes a plan; changes nothing"},
	{agent.ModeReview, "Review", "Reviews the code or the changes; changes nothing"},
}

func (l *live) modeState() *sdk.SessionModeState {
	var ms []sdk.SessionMode
	seen := map[agent.Mode]bool{}
	for _, b := range builtinModes {
		ms = append(ms, sdk.SessionMode{Id: sdk.SessionModeId(b.mode), Name: b.name, Description: sdk.Ptr(b.desc)})
		seen[b.mode] = true
	}
	for _, m := range l.modes {
		if !seen[m.Name] {
			seen[m.Name] = true
			ms = append(ms, sdk.SessionMode{Id: sdk.SessionModeId(m.Name), Name: string(m.Name)})
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return &sdk.SessionModeState{AvailableModes: ms, CurrentModeId: sdk.SessionModeId(l.mode)}
}

// afterReply is a result with work to do once the response is written
// (updates about a session the client must know first).
type afterReply struct {
	result any
	after  func()
}

func (a afterReply) MarshalJSON() ([]byte, error) { return json.Marshal(a.result) }

// checkCwd validates the directory the editor named.
func checkCwd(cwd string) *RPCError {
	if cwd == "" {
		return rpcErrorf(CodeInvalidParams, `invalid params: "cwd" is required: the absolute directory the session works in`)
	}
	if !filepath.IsAbs(cwd) {
		return rpcErrorf(CodeInvalidParams, "invalid params: cwd %q is not an absolute path", cwd)
	}
	fi, err := os.Stat(cwd)
	if err != nil || !fi.IsDir() {
		return rpcErrorf(CodeInvalidParams, "invalid params: cwd %q is not an existing directory", cwd)
	}
	return nil
}

// mcpServers converts the editor's MCP servers.
func mcpServers(in []sdk.McpServer) ([]MCPServer, *RPCError) {
	var out []MCPServer
	for i, m := range in {
		switch {
		case m.Stdio != nil:
			var env []string
			for _, e := range m.Stdio.Env {
				env = append(env, e.Name+"="+e.Value)
			}
			out = append(out, MCPServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env, Transport: "stdio"})
		case m.Http != nil:
			out = append(out, MCPServer{Name: m.Http.Name, URL: m.Http.Url, Transport: "http", Headers: headers(m.Http.Headers)})
		case m.Sse != nil:
			out = append(out, MCPServer{Name: m.Sse.Name, URL: m.Sse.Url, Transport: "sse", Headers: headers(m.Sse.Headers)})
		default:
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: mcpServers[%d]: unsupported transport (want stdio, http or sse)", i)
		}
	}
	return out, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, h := range hs {
		m[h.Name] = h.Value
	}
	return m
}

// open builds a live session's agent in cwd; id "" creates a new session.
func (s *Server) open(ctx context.Context, cwd string, servers []sdk.McpServer, id string) (*live, *RPCError) {
	if e := checkCwd(cwd); e != nil {
		return nil, e
	}
	if e := s.authRequired(); e != nil {
		return nil, e
	}
	ms, e := mcpServers(servers)
	if e != nil {
		return nil, e
	}
	l := &live{s: s, cwd: cwd, mode: agent.ModeAgent, rejected: map[string]bool{}}
	setup, err := s.cfg.Open(ctx, SessionEnv{Cwd: cwd, MCPServers: ms, l: l})
	if err != nil {
		return nil, errorf("opening a session in %s: %v", cwd, err)
	}
	l.setup, l.modes = setup, setup.Agent.Modes
	if setup.Agent.Mode != "" {
		l.mode = setup.Agent.Mode
	}
	l.tr = newTranslator(l)
	cfg := setup.Agent
	cfg.Sink = event.SinkFunc(l.tr.emit)
	cfg.Policy = approval.Interactive()
	cfg.Approver = approval.Func(l.approve)
	cfg.ApprovalTimeout = s.cfg.ApprovalTimeout
	cfg.ToolMiddleware = append([]agent.ToolMiddleware{l.tr.middleware}, cfg.ToolMiddleware...)
	mgr, err := session.NewManager(s.cfg.Store, cfg)
	if err != nil {
		l.close()
		return nil, errorf("configuring the session's agent: %v", err)
	}
	if id == "" {
		l.sess, err = mgr.Create(ctx, "")
	} else {
		l.sess, err = mgr.Open(ctx, id)
	}
	if err != nil {
		l.close()
		if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrOtherWorkspace) {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: %v", err)
		}
		return nil, errorf("opening the session: %v", err)
	}
	l.id = l.sess.ID()
	s.mu.Lock()
	old := s.sessions[l.id]
	s.sessions[l.id] = l
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
	return l, nil
}

func (s *Server) newSession(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var req sdk.NewSessionRequest
	if e := decode(params, &req); e != nil {
		return nil, e
	}
	l, e := s.open(ctx, req.Cwd, req.McpServers, "")
	if e != nil {
		return nil, e
	}
	return afterReply{result: sdk.NewSessionResponse{SessionId: sdk.SessionId(l.id), Modes: l.modeState()}, after: l.announceCommands}, nil
}

// loadSession replays the stored conversation as session/update
// notifications, then answers.
func (s *Server) loadSession(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var req sdk.LoadSessionRequest
	if e := decode(params, &req); e != nil {
		return nil, e
	}
	l, e := s.reopen(ctx, req.SessionId, req.Cwd, req.McpServers, func(l *live, ev event.Event) { l.tr.replay(ev) })
	if e != nil {
		return nil, e
	}
	return afterReply{result: sdk.LoadSessionResponse{Modes: l.modeState()}, after: l.announceCommands}, nil
}

// resumeSession reopens a stored session without replaying it: the
// editor still shows the conversation.
func (s *Server) resumeSession(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var req sdk.ResumeSessionRequest
	if e := decode(params, &req); e != nil {
		return nil, e
	}
	// /undo still reaches the turns before the restart.
	l, e := s.reopen(ctx, req.SessionId, req.Cwd, req.McpServers, func(l *live, ev event.Event) {
		if f, ok := ev.(event.RunFinished); ok && f.CheckpointID != "" {
			l.mu.Lock()
			l.pushCheckpoint(f.CheckpointID)
			l.mu.Unlock()
		}
	})
	if e != nil {
		return nil, e
	}
	return afterReply{result: sdk.ResumeSessionResponse{Modes: l.modeState()}, after: l.announceCommands}, nil
}

// reopen opens the stored session id in cwd and hands each of its stored
// events, oldest first, to each.
func (s *Server) reopen(ctx context.Context, id sdk.SessionId, cwd string, servers []sdk.McpServer, each func(*live, event.Event)) (*live, *RPCError) {
	if id == "" {
		return nil, rpcErrorf(CodeInvalidParams, `invalid params: "sessionId" is required`)
	}
	l, e := s.open(ctx, cwd, servers, string(id))
	if e != nil {
		return nil, e
	}
	for ev, err := range l.sess.Events(ctx, 0) {
		if err != nil {
			return nil, errorf("reading the session's history: %v", err)
		}
		each(l, ev.Event)
	}
	return l, nil
}

// listPage is how many sessions one session/list answer holds.
const listPage = 50

func (s *Server) listSessions(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var req sdk.ListSessionsRequest
	if len(params) > 0 && !isNull(params) {
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: %v", err)
		}
	}
	start := 0
	if req.Cursor != nil {
		n, err := strconv.Atoi(*req.Cursor)
		if err != nil || n < 0 {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: cursor %q is not one this agent gave", *req.Cursor)
		}
		start = n
	}
	all, err := s.cfg.Store.List(ctx)
	if err != nil {
		return nil, errorf("listing sessions: %v", err)
	}
	var match []session.Info
	for _, i := range all {
		if i.Workspace == "" || (req.Cwd != nil && filepath.Clean(*req.Cwd) != i.Workspace) {
			continue
		}
		match = append(match, i)
	}
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for i := start; i < len(match) && i < start+listPage; i++ {
		info := match[i]
		si := sdk.SessionInfo{SessionId: sdk.SessionId(info.ID), Cwd: info.Workspace, UpdatedAt: sdk.Ptr(info.Updated.UTC().Format(time.RFC3339))}
		if info.Title != "" {
			si.Title = sdk.Ptr(info.Title)
		}
		resp.Sessions = append(resp.Sessions, si)
	}
	if start+listPage < len(match) {
		resp.NextCursor = sdk.Ptr(strconv.Itoa(start + listPage))
	}
	return resp, nil
}

func (s *Server) closeSession(_ context.Context, params json.RawMessage) (any, *RPCError) {
	var req sdk.CloseSessionRequest
	if e := decode(params, &req); e != nil {
		return nil, e
	}
	l, e := s.session(string(req.SessionId))
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	delete(s.sessions, l.id)
	s.mu.Unlock()
	l.close()
	return sdk.CloseSessionResponse{}, nil
}

func (s *Server) setMode(_ context.Context, params json.RawMessage) (any, *RPCError) {
	var req sdk.SetSessionModeRequest
	if e := decode(params, &req); e != nil {
		return nil, e
	}
	l, e := s.session(string(req.SessionId))
	if e != nil {
		return nil, e
	}
	ok := false
	for _, m := range l.modeState().AvailableModes {
		ok = ok || m.Id == req.ModeId
	}
	if !ok {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: unknown mode %q; the session's modes are in its modes.availableModes", req.ModeId)
	}
	l.mu.Lock()
	l.mode = agent.Mode(req.ModeId)
	l.mu.Unlock()
	return sdk.SetSessionModeResponse{}, nil
}
