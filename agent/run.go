package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/toolcall"
	"github.com/tetherdev/tether/tools"
)

// run is one turn: its mode, the sub-handlers wired for it, and its
// state, split by concern (the conversation sent to the model, the
// limits, the progress). Only the loop goroutine touches the state.
type run struct {
	e       *Executor
	cfg     *Config  // the Executor's settings when the run started (a copy)
	st      runState // what the Executor derived from them
	in      Input
	id      string
	mode    Mode
	spec    ModeSpec // the mode's definition
	calling ToolCalling
	offered *tools.Registry // what the model is offered in this mode

	*emitter
	runContext
	stream   *streamProcessor
	runner   *toolRunner
	summary  *summaryBuilder
	branches *branchCreator
	guard    loopGuard

	conversation
	runLimits
	runProgress
	branch string

	cpMu sync.Mutex
	cp   changeSet // begun on the first write
}

// conversation is what the model is sent: the system message, the
// history, and the tool specs of native calling. Invariant: history
// aliases msgs[1:] and msgs[0] is system, so a request reuses one slice.
type conversation struct {
	system  llm.Message
	msgs    []llm.Message
	history []llm.Message
	specs   []llm.ToolSpec
}

// runLimits are a run's bounds, fixed when it is wired.
type runLimits struct {
	max        int  // model calls
	maxRepeat  int  // failures of the same call before stopping
	pivotAfter int  // all-failed rounds before pivot guidance
	needWrites bool // completion needs a successful write
}

// runProgress is what the loop has done so far.
type runProgress struct {
	iter     int
	usage    llm.Usage
	results  []callResult
	wrote    bool // some write succeeded
	reminded bool // the write reminder was sent
	lastText string
	allText  []string
}

// wire builds the sub-handlers for one run. Each receives functions and
// small interfaces, never the Executor.
func (e *Executor) wire(ctx context.Context, in Input, sink event.Sink) (*run, error) {
	cfg, st := e.snapshot()
	mode := in.Mode
	if mode == "" {
		mode = cfg.Mode
	}
	spec, err := cfg.modeSpec(mode)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Prompt) == "" && len(in.Images) == 0 {
		return nil, ErrEmptyPrompt
	}
	r := &run{e: e, cfg: cfg, st: st, in: in, id: newID("run_"), mode: mode, spec: spec, emitter: &emitter{ctx: ctx, sink: sink}}
	r.calling = cfg.ToolCalling
	if r.calling == ToolCallingAuto {
		r.calling = ToolCallingText
		if e.capabilities(ctx).Tools {
			r.calling = ToolCallingNative
		}
	}
	reg := cfg.Tools
	r.offered = reg
	if spec.restricts() {
		r.offered = reg.Filter(spec.offers)
	}
	r.max = cfg.maxIterations(spec, r.calling)
	r.maxRepeat = orDefault(cfg.MaxRepeatedFailures, 3)
	r.pivotAfter = orDefault(cfg.PivotAfter, 2)
	r.guard = loopGuard{maxRepeat: r.maxRepeat, pivotAfter: r.pivotAfter}
	switch {
	case spec.ReadOnly:
	case cfg.RequireWrites != nil:
		r.needWrites = *cfg.RequireWrites
	default:
		// Only a run that can write is held to it: with no workspace or no
		// file tool, "write a poem" is an answer, not a file.
		r.needWrites = cfg.Workspace != nil && canEdit(reg) && wantsWrites(in.Prompt)
	}

	if err := r.wireContext(ctx, r.offered.Names()); err != nil {
		return nil, err
	}
	r.msgs = make([]llm.Message, 0, 2+len(in.History)+4*r.max)
	r.msgs = append(r.msgs, llm.Message{})
	r.setCalling(r.calling)
	if err := r.fitPrompt(); err != nil {
		return nil, err
	}
	for _, m := range in.History {
		if m.Role != llm.RoleSystem {
			r.msgs = append(r.msgs, m)
		}
	}
	r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Content: r.userText, Images: in.Images})
	r.history = r.msgs[1:]
	r.task = len(r.history) - 1

	parserOpts := []toolcall.Option{toolcall.WithTools(knownNames(reg)...)}
	if r.calling == ToolCallingEnvelope {
		parserOpts = append(parserOpts, toolcall.WithFormats(toolcall.FormatYips))
	}
	// isFileEdit names tools that may write files, for a call written in
	// text whose path arrives before its arguments are complete.
	isFileEdit := func(name string) bool {
		t, _, err := reg.Lookup(name)
		if err != nil {
			return false
		}
		_, declares := t.(tools.Declarer)
		return declares && !t.Describe().ReadOnly
	}
	// fileWriting names the file a streamed call will write, for a
	// "Writing <file>…" line while the model is still sending it.
	fileWriting := func(name string, args json.RawMessage) string {
		if !isFileEdit(name) {
			return ""
		}
		tc, err := prepareCall(context.WithoutCancel(ctx), reg, call{Name: name, Args: args})
		if err != nil || len(tc.Effects.Changes) == 0 || tc.Effects.Changes[0].Remove {
			return ""
		}
		return tc.Effects.Changes[0].Path
	}

	r.stream = &streamProcessor{emit: r.emit, now: cfg.Clock, fileWriting: fileWriting, isFileEdit: isFileEdit,
		newParser: func() *toolcall.Stream { return toolcall.NewStream(parserOpts...) }}

	// ToolTimeout bounds the tool itself, never a person's time to answer
	// an approval card (ApprovalTimeout does that).
	execute := reg.Execute
	if cfg.ToolTimeout > 0 {
		execute = func(ctx context.Context, c tools.Call) tools.Result {
			tctx, cancel := context.WithTimeout(ctx, cfg.ToolTimeout)
			defer cancel()
			res := reg.Execute(tctx, c)
			if ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
				res = timedOut(c.Name, cfg.ToolTimeout, res)
			}
			return res
		}
	}
	execute = withToolProgress(execute, r.emit, cfg.Clock)
	r.runner = &toolRunner{
		prepare: func(ctx context.Context, c call) (*ToolCall, error) { return prepareCall(ctx, reg, c) },
		declare: func(ctx context.Context, tc *ToolCall) error { return declareEffects(ctx, reg, tc) },
		execute: execute, allowed: spec.gate(), emit: r.emit, stopped: r.sinkErr, parallel: orDefault(cfg.Parallel, 4)}
	r.runner.chain = chainTools(ToolHandlerFunc(r.runner.dispatch), cfg.ToolMiddleware)
	gate := newGate(cfg, e.grants, r.emit, r.runner.pending)
	var check func(string, safety.Op) safety.PathCheck
	if cfg.Workspace != nil {
		check = cfg.Workspace.Check
	}
	th := &terminalHandler{assess: st.safety.AssessCommand, check: check, authorize: gate.Authorize,
		execute: execute, readOnlyGit: spec.ReadOnly, commandDir: cfg.CommandDir, logger: cfg.Logger}
	r.runner.terminal = th
	if st.safety.Workspace != nil {
		r.runner.reads = &readGuard{assess: st.safety.Assess, secretIn: secretInFile(st.safety.Workspace), authorize: gate.Authorize,
			askable: !spec.ReadOnly, logger: cfg.Logger}
	}
	r.runner.open = &openWorldGate{authorize: gate.Authorize, askable: !spec.ReadOnly, logger: cfg.Logger}
	r.runner.special = r.specialHandlers(th, gate.Authorize)
	if !spec.ReadOnly {
		r.runner.others = &otherHandler{authorize: gate.Authorize, execute: execute}
		if cfg.Workspace != nil {
			th.changes, th.files = r.changes, cfg.Workspace
			r.runner.files = &fileEditHandler{assess: st.safety.Assess, files: cfg.Workspace, changes: r.changes, authorize: gate.Authorize,
				execute: execute, stager: cfg.Staging, logger: cfg.Logger}
			if cfg.Staging != nil {
				r.runner.apply = applyHandler{stager: cfg.Staging, authorize: gate.Authorize, changes: r.changes}
			}
		} else {
			r.runner.files = noWorkspace{}
		}
		if cfg.GitBranch != nil && cfg.Workspace != nil {
			r.branches = &branchCreator{cfg: *cfg.GitBranch, git: execGit(cfg.GitBranch.Git), now: cfg.Clock, logger: cfg.Logger}
		}
	}

	base := llm.Request{Model: cfg.ModelName, Temperature: r.temperature()}
	r.summary = &summaryBuilder{req: base, emit: r.emit, logger: cfg.Logger,
		chat: func(ctx context.Context, req llm.Request) (llm.Response, error) {
			return llm.Collect(cfg.Model.Chat(ctx, req))
		}}
	return r, nil
}

// request is the next chat request. It reuses the run's message slice:
// messages already sent are never changed, later ones are appended after
// them, so a model that keeps a request still sees what it was sent.
func (r *run) request() llm.Request {
	r.msgs = append(r.msgs[:1], r.history...)
	r.history = r.msgs[1:]
	req := llm.Request{Model: r.cfg.ModelName, Messages: r.msgs, Tools: r.specs, Temperature: r.temperature(), Think: r.cfg.Think}
	if req.Think == nil && r.calling == ToolCallingNative && r.e.capabilities(r.ctx).Thinking {
		req.Think = ptr(true)
	}
	return req
}

// setCalling switches the tool-calling mode: native requests carry the
// specs, text and envelope modes describe the tools in the system prompt.
func (r *run) setCalling(c ToolCalling) {
	r.calling = c
	r.pb.calling, r.pb.tools = c, ""
	r.specs = nil
	if c == ToolCallingNative {
		r.specs = r.offered.Specs()
	} else {
		r.pb.tools = r.offered.Prompt()
	}
	r.meter.fixed = 0 // the spec estimate follows the calling mode
	r.system = r.systemMessage()
	r.msgs[0] = r.system
}

func (r *run) fullHistory() []llm.Message {
	return append([]llm.Message{r.system}, r.history...)
}

// changes begins the run's checkpoint on its first write, so runs that
// change nothing leave no checkpoint behind.
func (r *run) changes(ctx context.Context) (changeSet, error) {
	r.cpMu.Lock()
	defer r.cpMu.Unlock()
	if r.cp != nil {
		return r.cp, nil
	}
	cp, err := r.e.checkpoints.Begin(ctx, r.e.session, excerpt(r.in.Prompt, 80))
	if err != nil {
		return nil, err
	}
	r.cp = cp
	return cp, nil
}

// knownNames are the names a text-mode call may use: the registry's
// tools and the default aliases that lead to one of them.
func knownNames(reg *tools.Registry) []string {
	names := reg.Names()
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	for alias, target := range tools.DefaultAliases() {
		if have[target] && !have[alias] {
			names = append(names, alias)
		}
	}
	// Small models respell names (readFile, ReadFile, read-file); the
	// registry resolves those, so the parser must let them through.
	for _, n := range reg.Names() {
		for _, v := range respellings(n) {
			if !have[v] {
				have[v] = true
				names = append(names, v)
			}
		}
	}
	// A namespaced tool (skill__todos) answers to its bare name (todos,
	// as envelope skill actions write it) when no other tool has it.
	bare := map[string]int{}
	for _, n := range reg.Names() {
		if i := strings.LastIndex(n, tools.NamespaceSep); i > 0 {
			bare[n[i+len(tools.NamespaceSep):]]++
		}
	}
	for b, count := range bare {
		if count == 1 && !have[b] {
			have[b] = true
			names = append(names, b)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// respellings are the other spellings of a snake_case name.
func respellings(name string) []string {
	parts := strings.Split(name, "_")
	if len(parts) < 2 {
		return nil
	}
	var camel, pascal strings.Builder
	for i, p := range parts {
		if p == "" {
			return nil
		}
		up := strings.ToUpper(p[:1]) + p[1:]
		pascal.WriteString(up)
		if i == 0 {
			camel.WriteString(p)
		} else {
			camel.WriteString(up)
		}
	}
	return []string{camel.String(), pascal.String(), strings.ReplaceAll(name, "_", "-")}
}

// canEdit reports whether some tool may write files: one that is not
// read-only and declares effects (the file tools), since an opaque tool's
// writes cannot be counted on.
func canEdit(reg *tools.Registry) bool {
	for _, t := range reg.Tools() {
		if _, ok := t.(tools.Declarer); ok && !t.Describe().ReadOnly {
			return true
		}
	}
	return false
}

// noWorkspace answers file edits when no workspace is configured.
type noWorkspace struct{}

func (noWorkspace) handle(context.Context, *ToolCall) outcome {
	return failed(event.StatusError, ErrNoWorkspace.Error())
}

// emitter is the run's single ordered path to the sink. After the sink
// fails, nothing more is sent and the loop stops at its next check.
type emitter struct {
	ctx  context.Context
	sink event.Sink
	mu   sync.Mutex
	err  error
}

func (m *emitter) emit(e event.Event) {
	if m.sink == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return
	}
	if err := m.sink.Emit(m.ctx, e); err != nil {
		m.err = fmt.Errorf("%w: %s event: %w", ErrSink, e.Type(), err)
	}
}

func (m *emitter) sinkErr() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

var _ approval.Approver = (*approvalBridge)(nil)

// temperature is the mode's, else the Config's.
func (r *run) temperature() *float64 {
	if r.spec.Temperature != nil {
		return r.spec.Temperature
	}
	return r.cfg.Temperature
}

// timedOut is the result of a call stopped by Config.ToolTimeout: the
// model and the host are told it timed out and after how long, not that
// it was cancelled, and keep whatever output it had produced.
func timedOut(name string, limit time.Duration, res tools.Result) tools.Result {
	text := fmt.Sprintf("Timed out: %s did not finish within %s (the agent's tool timeout) and was stopped.", name, limit)
	if out := strings.TrimSpace(res.Text); out != "" && !strings.Contains(out, context.DeadlineExceeded.Error()) {
		text += "\n\nOutput before it stopped:\n" + out
	}
	res.Text, res.IsError = text, true
	res.Meta.TimedOut = true
	return res
}
