package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

func failed(status event.ActionStatus, text string) outcome {
	return outcome{Text: text, Status: status, Detail: firstLine(text)}
}

// callResult pairs a call with its outcome.
type callResult struct {
	call      call
	canonical string
	tc        *ToolCall // nil when the call could not be prepared
	out       outcome
}

// batchResult is what the runner returns for one batch.
type batchResult struct {
	results   []callResult
	wrote     bool // some file write succeeded
	allFailed bool // every call failed, was denied or was skipped
}

// callHandler runs the calls of one kind (terminal commands, file edits).
type callHandler interface {
	handle(ctx context.Context, c *ToolCall) outcome
}

// toolRunner executes one batch of calls: in order, except that a run of
// consecutive read-only calls may execute concurrently. Each call is
// prepared once (name resolved, arguments normalised, effects declared),
// then passes through the handler chain: the host's middleware around the
// agent's own handler, which routes by the declared effects (a command to
// the terminal handler, file writes to the file-edit handler, a tool that
// declares nothing to the opaque-tool handler) and reports running →
// (pending) → final status for each, under one progress group per batch.
// Events stay in call order even when calls run concurrently: all
// "running" events of a concurrent run come first, then the results in
// order.
type toolRunner struct {
	// prepare resolves and normalises a call and has its tool declare
	// its effects; an error is the model's to read.
	prepare func(ctx context.Context, c call) (*ToolCall, error)
	// declare has the tool declare a prepared call's effects again, just
	// before it runs.
	declare  func(ctx context.Context, c *ToolCall) error
	execute  func(ctx context.Context, c tools.Call) tools.Result
	terminal callHandler             // calls that run a command
	files    callHandler             // calls that write files; nil in read-only modes
	others   callHandler             // tools that may change things and declare no judgeable effect; nil refuses them
	special  map[string]callHandler  // skills and subagents, by canonical name
	apply    callHandler             // applies staged changes (Effects.ApplyToken); nil outside staging mode
	reads    *readGuard              // nil: reads are not judged
	open     *openWorldGate          // asks about open-world reads; nil refuses them
	allowed  func(c *ToolCall) error // the mode's gate; nil allows all
	chain    ToolHandler             // host middleware around dispatch
	emit     func(event.Event)
	stopped  func() error // non-nil once the sink failed
	parallel int

	mu     sync.Mutex
	active map[string]event.ToolAction // call id → its running action, for pending events
}

// routed is a call after preparation and the mode's gate.
type routed struct {
	c          call
	canonical  string
	tc         *ToolCall
	early      *outcome          // set when the call is refused before running
	ask        *approval.Request // a read that needs approval first
	action     event.ToolAction
	finalTitle func(event.ActionStatus) string
	concurrent bool // runs alongside other calls
}

func (r *toolRunner) runBatch(ctx context.Context, groupID string, calls []call) batchResult {
	rs := make([]routed, len(calls))
	for i, c := range calls {
		rs[i] = r.route(ctx, c)
	}
	title := groupTitle(rs)
	r.emit(event.ProgressGroupStarted{GroupID: groupID, Title: title})

	out := batchResult{results: make([]callResult, len(calls)), allFailed: true}
	for i := 0; i < len(rs); {
		j := i + 1
		if r.concurrent(rs[i]) {
			for j < len(rs) && r.concurrent(rs[j]) {
				j++
			}
		}
		r.runSpan(ctx, groupID, rs[i:j], out.results[i:j])
		i = j
	}
	worst := event.StatusSuccess
	for _, res := range out.results {
		if res.out.Wrote {
			out.wrote = true
		}
		if res.out.Status == event.StatusSuccess {
			out.allFailed = false
		}
		worst = worse(worst, res.out.Status)
	}
	r.emit(event.ProgressGroupFinished{GroupID: groupID, Title: title, Status: worst})
	return out
}

func (r *toolRunner) route(ctx context.Context, c call) routed {
	rt := routed{c: c, canonical: c.Name}
	if p := callProblem(c); p != "" {
		rt.early = ptr(failed(event.StatusError, p))
		return rt
	}
	tc, err := r.prepare(ctx, c)
	if tc != nil {
		rt.tc, rt.canonical = tc, tc.Tool
	}
	if err != nil && tc != nil && r.special[tc.Tool] != nil {
		// Skills and the subagent tool read their own arguments, in more
		// shapes than their schema shows; they judge what they do inside.
		tc.Args, err = c.Args, nil
	}
	if err != nil {
		rt.early = ptr(failed(event.StatusError, "Error: "+err.Error()))
		return rt
	}
	if r.allowed != nil {
		if err := r.allowed(tc); err != nil {
			rt.early = ptr(failed(event.StatusDenied, err.Error()))
			return rt
		}
	}
	if tc.Effects.ReadOnly && r.reads != nil {
		rt.early, rt.ask = r.reads.judge(ctx, tc)
	}
	return rt
}

// concurrent reports whether a call may run alongside its neighbours:
// only calls that declare they only read, need no approval and no
// handler of their own.
func (r *toolRunner) concurrent(rt routed) bool {
	return r.parallel > 1 && rt.early == nil && rt.ask == nil && rt.tc != nil && readOnly(rt.tc.Effects) &&
		!needsOpenWorldApproval(rt.tc.Effects) && r.special[rt.canonical] == nil
}

// readOnly reports effects that change nothing and need no decision.
func readOnly(e tools.Effects) bool {
	return e.ReadOnly && e.Command == "" && len(e.Writes) == 0 && e.Decision != safety.Confirm && e.Decision != safety.Deny
}

// runSpan runs rs (one call, or several concurrent read-only calls).
func (r *toolRunner) runSpan(ctx context.Context, groupID string, rs []routed, dst []callResult) {
	for i := range rs {
		rs[i].action = event.ToolAction{GroupID: groupID, CallID: rs[i].c.ID, Tool: rs[i].canonical, Status: event.StatusRunning}
		rs[i].action.Title, rs[i].finalTitle, rs[i].action.Path = actionTitles(rs[i].tc, rs[i].canonical)
		if tc := rs[i].tc; tc != nil {
			rs[i].action.Kind, rs[i].action.Detail, rs[i].action.Arguments = tc.Title.Kind, tc.Title.Detail, tc.Args
		}
	}
	if len(rs) == 1 {
		r.announce(rs[0].action)
		dst[0] = r.finish(rs[0], r.one(ctx, rs[0]))
		return
	}
	for i := range rs {
		rs[i].concurrent = true
		r.announce(rs[i].action)
	}
	outs := make([]outcome, len(rs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, r.parallel)
	for i := range rs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i] = r.one(ctx, rs[i])
		}()
	}
	wg.Wait()
	for i := range rs {
		dst[i] = r.finish(rs[i], outs[i])
	}
}

func (r *toolRunner) announce(a event.ToolAction) {
	r.mu.Lock()
	if r.active == nil {
		r.active = make(map[string]event.ToolAction)
	}
	r.active[a.CallID] = a
	r.mu.Unlock()
	r.emit(a)
}

// pending re-announces a running call as waiting for approval; the
// approval bridge calls it just before the approval card.
func (r *toolRunner) pending(callID string) {
	r.mu.Lock()
	a, ok := r.active[callID]
	r.mu.Unlock()
	if ok {
		a.Status = event.StatusPending
		r.emit(a)
	}
}

// one runs a single call to its outcome.
func (r *toolRunner) one(ctx context.Context, rt routed) outcome {
	if rt.early != nil {
		return *rt.early
	}
	if err := ctx.Err(); err != nil {
		return failed(event.StatusSkipped, "Not run: the run was cancelled.")
	}
	if r.stopped != nil && r.stopped() != nil {
		return failed(event.StatusSkipped, "Not run: the run stopped because its events could not be delivered.")
	}
	if rt.tc.Effects.ReadOnly && r.reads != nil {
		// Judge again now: an earlier call of the batch may have changed
		// what the path is (a new symlink to .env).
		early, ask := r.reads.judge(ctx, rt.tc)
		switch {
		case early != nil:
			return *early
		case ask != nil && rt.concurrent:
			// Approvals are asked one at a time, never from a concurrent span.
			return failed(event.StatusDenied, "Not read: the path changed during this batch and now needs approval; ask for it again on its own.")
		case ask != nil:
			if o := r.reads.ask(ctx, *ask); o != nil {
				return *o
			}
		}
	}
	return r.chain.HandleTool(ctx, rt.tc)
}

// dispatch is the agent's own handler, innermost in the chain: an
// open-world read no host configuration allows is approved first (skills
// included), then the call is routed by what its tool declares.
func (r *toolRunner) dispatch(ctx context.Context, tc *ToolCall) outcome {
	if !needsOpenWorldApproval(tc.Effects) {
		return r.byEffects(ctx, tc)
	}
	// What a person approves is declared now: a call whose declaration
	// failed when the batch was routed is refused before anyone is asked.
	if err := r.declare(ctx, tc); err != nil {
		return failed(event.StatusError, "Error: "+err.Error())
	}
	if !needsOpenWorldApproval(tc.Effects) {
		return r.byEffects(ctx, tc)
	}
	approved, refused := r.open.approve(ctx, tc)
	if refused != nil {
		return *refused
	}
	o := r.byEffects(tools.WithApproved(ctx, tc.Effects), tc)
	o.AutoApproved = approved.By() != approval.ByUser
	return o
}

// byEffects runs a call by what its tool declares it will do.
func (r *toolRunner) byEffects(ctx context.Context, tc *ToolCall) outcome {
	if h := r.special[tc.Tool]; h != nil {
		// Skills and subagents are bounded inside (a skill's command by
		// the terminal handler and ToolTimeout, a subagent by its round
		// limit), never around a whole call that may wait for approvals.
		// A skill that declares its calls (fetch) is held to its verdict.
		if tc.Effects.Decision == safety.Deny {
			return refusedByTool(tc)
		}
		return h.handle(ctx, tc)
	}
	if !readOnly(tc.Effects) {
		// The file may have changed since the batch was routed (an
		// earlier call wrote it): what is judged is declared now.
		if err := r.declare(ctx, tc); err != nil {
			if errors.Is(err, safety.ErrOutsideWorkspace) {
				return failed(event.StatusDenied, "Not changed: "+err.Error())
			}
			return failed(event.StatusError, "Error: "+err.Error())
		}
	}
	e := tc.Effects
	switch {
	case e.Decision == safety.Deny:
		return refusedByTool(tc)
	case e.Command != "" && r.terminal != nil:
		return r.terminal.handle(ctx, tc)
	case e.ApplyToken != "" && r.apply != nil:
		return r.apply.handle(ctx, tc)
	case len(e.Writes) > 0 && r.files != nil:
		return r.files.handle(ctx, tc)
	case readOnly(e):
		return fromToolResult(r.execute(ctx, tools.Call{ID: tc.ID, Name: tc.Tool, Arguments: tc.Args}))
	case r.others != nil:
		return r.others.handle(ctx, tc)
	}
	return failed(event.StatusDenied, fmt.Sprintf("Not run: %s may change things, and nothing in this run can judge or allow it.", tc.Tool))
}

// refusedByTool is the outcome of a call its own tool refuses.
func refusedByTool(tc *ToolCall) outcome {
	why := strings.Join(tc.Effects.Reasons, "; ")
	return outcome{Text: fmt.Sprintf("Not run: %s refuses this call: %s", tc.Tool, why), Status: event.StatusDenied, Detail: why}
}

func (r *toolRunner) finish(rt routed, o outcome) callResult {
	a := rt.action
	a.Status = o.Status
	a.Title = rt.finalTitle(o.Status)
	a.Detail, a.StartLine, a.Chunks, a.Added, a.Removed = o.Detail, o.StartLine, o.Chunks, o.Added, o.Removed
	a.AutoApproved, a.CheckpointID, a.Output = o.AutoApproved, o.CheckpointID, o.Text
	a.Arguments, a.Metadata = nil, o.Metadata // the arguments were on the running action
	if o.Path != "" {
		a.Path = o.Path
	}
	r.mu.Lock()
	delete(r.active, a.CallID)
	r.mu.Unlock()
	r.emit(a)
	return callResult{call: rt.c, canonical: rt.canonical, tc: rt.tc, out: o}
}

// fromToolResult maps a registry result to an outcome.
func fromToolResult(res tools.Result) outcome {
	o := outcome{Text: res.Text, Status: event.StatusSuccess, Path: res.Meta.Path, StartLine: res.Meta.StartLine,
		Added: res.Meta.Added, Removed: res.Meta.Removed, Images: res.Images, Metadata: res.Metadata}
	if len(res.Meta.Chunks) > 1 {
		o.Chunks = res.Meta.Chunks
	}
	if res.IsError {
		o.Status = event.StatusError
		if res.Meta.TimedOut {
			o.Detail = "timed out"
		}
	}
	o.Detail = resultDetail(res, o.Detail)
	return o
}

func resultDetail(res tools.Result, fallback string) string {
	m := res.Meta
	switch {
	case fallback != "":
		return fallback
	case m.ExitCode != nil:
		return fmt.Sprintf("exit code %d", *m.ExitCode)
	case m.StartLine > 0 && m.EndLine > 0:
		return fmt.Sprintf("lines %d–%d", m.StartLine, m.EndLine)
	case m.Summary != "":
		return m.Summary
	case m.Matches > 0 && m.Files > 0:
		return countOf(m.Matches, "match", "matches") + " in " + countOf(m.Files, "file", "files")
	case m.Matches > 0:
		return countOf(m.Matches, "result", "results")
	case m.Entries > 0:
		return countOf(m.Entries, "entry", "entries")
	case res.IsError:
		return firstLine(res.Text)
	}
	return ""
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// statusRank orders statuses from best to worst for group summaries.
var statusRank = map[event.ActionStatus]int{event.StatusSuccess: 0, event.StatusSkipped: 1, event.StatusError: 2, event.StatusDenied: 3}

func worse(a, b event.ActionStatus) event.ActionStatus {
	if statusRank[b] > statusRank[a] {
		return b
	}
	return a
}

func ptr[T any](v T) *T { return &v }

// deniedStatus is the status of a call the gate refused: denied, or
// skipped when the refusal came from the run being cancelled.
func deniedStatus(ctx context.Context) event.ActionStatus {
	if ctx.Err() != nil {
		return event.StatusSkipped
	}
	return event.StatusDenied
}

// errorStatus classifies an error from a handler step.
func errorStatus(ctx context.Context, err error) event.ActionStatus {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return event.StatusSkipped
	}
	return event.StatusError
}
