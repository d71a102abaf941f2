package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
)

// maxLine bounds one request line; a prompt with attached code can be long.
const maxLine = 16 << 20

// request is one line of standard input. Unknown fields are rejected, so a
// host that misspells "text" hears about it instead of sending empty
// prompts.
type request struct {
	Type       string   `json:"type"`
	Text       string   `json:"text,omitempty"`       // prompt
	Mode       string   `json:"mode,omitempty"`       // prompt
	Checkpoint string   `json:"checkpoint,omitempty"` // undo
	ID         string   `json:"id,omitempty"`         // approve
	Decision   string   `json:"decision,omitempty"`   // approve: allow, allow_session, deny
	Message    string   `json:"message,omitempty"`    // approve: told to the model with a deny
	Attach     []string `json:"attach,omitempty"`     // prompt: "path" or "path:L10-L50"
	Token      string   `json:"token,omitempty"`      // apply
}

// job is a prompt or an undo waiting its turn, with the input line it came
// from so errors can point at it.
type job struct {
	line int
	req  request
}

// gateway serves requests. Conversation state (history, memory, the last
// checkpoint) is touched only by the worker goroutine, which runs jobs one
// at a time; approvals are answered by the reader goroutine directly.
type gateway struct {
	out       *lineWriter
	ws        *safety.Workspace
	store     checkpoint.Store
	x         *agent.Executor
	approvals *approval.Manager // nil unless -approvals stdin
	staging   bool              // -staging
	logger    *slog.Logger
	wire      *os.File // -wire-log, or nil
	modes     []string // the modes a prompt may ask for
	stop      func()   // releases what the feature flags started
	cancels   promptCanceller

	// mu guards inputDone and announced. announced holds the approval ids
	// written to the host and not yet resolved, with an answer that came
	// before the Manager registered the request: the executor shows the
	// approval card before it calls the Approver, so a quick host can
	// answer first.
	mu        sync.Mutex
	inputDone bool
	announced map[string]*approval.Response

	history        []llm.Message
	memory         *agent.Memory
	lastCheckpoint string
}

func (g *gateway) close() {
	if g.store != nil {
		g.store.Close()
	}
	if g.ws != nil {
		g.ws.Close()
	}
	if g.stop != nil {
		g.stop()
	}
	if g.wire != nil {
		if err := g.wire.Close(); err != nil {
			g.logger.Warn("wire log", "err", err)
		}
	}
}

// approve is the executor's Approver with -approvals stdin: the request
// waits in the Manager until an approve line names its id. Once input has
// ended it is denied at once: no answer can come.
func (g *gateway) approve(ctx context.Context, req approval.Request) (approval.Response, error) {
	return g.approvals.Wait(ctx, req)
}

// sink writes the executor's events, noting each approval id before the
// host can see it.
func (g *gateway) sink(out io.Writer) event.Sink {
	lines := event.JSONLines(out)
	return event.SinkFunc(func(ctx context.Context, e event.Event) error {
		if r, ok := e.(event.ApprovalRequested); ok && g.approvals != nil {
			g.mu.Lock()
			g.announced[r.ID] = nil
			g.mu.Unlock()
		}
		return lines.Emit(ctx, e)
	})
}

// notify is the Manager's hook. A request registered after input ended is
// denied at once; together with ResolveAll at EOF (both under mu), no
// request can wait for an answer that cannot come. An answer that arrived
// before registration is applied now.
func (g *gateway) notify(e approval.Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id := e.Request.ID
	if e.Type == approval.EventResolved {
		delete(g.announced, id)
		return
	}
	switch early := g.announced[id]; {
	case g.inputDone:
		_ = g.approvals.Resolve(id, approval.Response{Choice: approval.Deny, Reason: "headless: input ended before an answer"})
	case early != nil:
		_ = g.approvals.Resolve(id, *early)
	}
}

// endInput denies every pending approval and every later one.
func (g *gateway) endInput() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inputDone = true
	if g.approvals != nil {
		g.approvals.ResolveAll(approval.Response{Choice: approval.Deny, Reason: "headless: input ended before an answer"})
	}
}

// serve reads requests until in ends, runs the queued jobs in order and
// returns when they are all done. It returns an error only when in cannot
// be read or ctx is cancelled; bad requests are reported as error events.
func (g *gateway) serve(ctx context.Context, in io.Reader) error {
	q := newQueue()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for j := range q.all() {
			g.do(ctx, j)
		}
	}()

	readErr := make(chan error, 1)
	go func() { readErr <- g.read(ctx, in, q) }()

	var err error
	select {
	case err = <-readErr:
	case <-ctx.Done():
		err = context.Cause(ctx)
	}
	g.endInput()
	q.close()
	<-done
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("stopped: %w", err)
	}
	return nil
}

// read parses input lines: approvals and cancels are served at once,
// prompts, undos and applies queued.
func (g *gateway) read(ctx context.Context, in io.Reader, q *queue) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || ctx.Err() != nil {
			continue
		}
		var req request
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			g.fail(n, fmt.Errorf("not a request object (%v); send e.g. {\"type\":\"prompt\",\"text\":\"…\"}", err))
			continue
		}
		switch req.Type {
		case "prompt":
			g.cancels.queue()
			q.push(job{line: n, req: req})
		case "undo", "apply":
			q.push(job{line: n, req: req})
		case "approve":
			g.answer(n, req)
		case "cancel":
			if !g.cancels.cancel(n) {
				g.fail(n, errors.New("cancel: no prompt is running or waiting"))
			}
		default:
			g.fail(n, fmt.Errorf("unknown request type %q: want prompt, cancel, undo, apply or approve", req.Type))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading standard input after line %d: %w", n, err)
	}
	return nil
}

// answer resolves a pending approval.
func (g *gateway) answer(line int, req request) {
	if g.approvals == nil {
		g.fail(line, errors.New("approve: approvals are not taken from input; start with -approvals stdin"))
		return
	}
	if req.ID == "" {
		g.fail(line, errors.New(`approve: "id" is required: the id of an approval_requested event`))
		return
	}
	var resp approval.Response
	switch req.Decision {
	case "allow", "allow_once":
		resp = approval.Response{Choice: approval.AllowOnce, Reason: "allowed by the host"}
	case "allow_session", "always":
		resp = approval.Response{Choice: approval.AllowSession, Reason: "allowed for the session by the host"}
	case "deny":
		resp = approval.Response{Choice: approval.Deny, Reason: "denied by the host", Message: req.Message}
	default:
		g.fail(line, fmt.Errorf("approve: decision %q: want allow, allow_session or deny", req.Decision))
		return
	}
	g.mu.Lock()
	err := g.approvals.Resolve(req.ID, resp)
	if early, shown := g.announced[req.ID]; errors.Is(err, approval.ErrUnknownRequest) && shown {
		if early == nil {
			g.announced[req.ID] = &resp // applied by notify on registration
			err = nil
		} else {
			err = fmt.Errorf("%w: %s was already answered", approval.ErrStale, req.ID)
		}
	}
	g.mu.Unlock()
	if err != nil {
		g.fail(line, fmt.Errorf("approve: %w", err))
	}
}

// do runs one queued job.
func (g *gateway) do(ctx context.Context, j job) {
	if ctx.Err() != nil {
		return
	}
	switch j.req.Type {
	case "prompt":
		pctx, done, by, ok := g.cancels.start(ctx, j.line)
		if !ok {
			g.fail(j.line, fmt.Errorf("prompt: not run: %w", cancelRequested{line: by}))
			return
		}
		defer done()
		g.prompt(pctx, j)
	case "undo":
		g.undo(ctx, j)
	case "apply":
		g.apply(ctx, j)
	}
}

func (g *gateway) prompt(ctx context.Context, j job) {
	mode := agent.Mode(j.req.Mode)
	if mode != "" && !slices.Contains(g.modes, string(mode)) {
		g.fail(j.line, fmt.Errorf("prompt: mode %q: want %s", j.req.Mode, strings.Join(g.modes, ", ")))
		return
	}
	if j.req.Text == "" {
		g.fail(j.line, errors.New(`prompt: "text" is empty`))
		return
	}
	var atts []agent.Attachment
	for _, ref := range j.req.Attach {
		a, err := agent.ParseAttachment(ref)
		if err != nil {
			g.fail(j.line, fmt.Errorf("prompt: attach: %w", err))
			return
		}
		atts = append(atts, a)
	}
	res, err := g.x.Run(ctx, agent.Input{Prompt: j.req.Text, Mode: mode, History: g.history, Memory: g.memory, Context: atts})
	if res != nil {
		g.history, g.memory = res.History, res.Memory
		if res.CheckpointID != "" {
			g.lastCheckpoint = res.CheckpointID
		}
	}
	var byHost cancelRequested
	if err != nil && errors.As(context.Cause(ctx), &byHost) {
		// run_finished already says so (stop_reason canceled); the
		// host asked for it, so it is not an error.
		g.logger.Info("headless: prompt cancelled", "line", j.line, "by", byHost.line)
		return
	}
	if err != nil {
		g.fail(j.line, fmt.Errorf("prompt: %w", err))
	}
}

// undoFinished reports an undo.
type undoFinished struct {
	Type       string            `json:"type"`
	Line       int               `json:"line"`
	Checkpoint string            `json:"checkpoint"`
	Restored   []string          `json:"restored"`
	Removed    []string          `json:"removed"`
	Unchanged  []string          `json:"unchanged,omitempty"`
	Skipped    []checkpoint.Skip `json:"skipped,omitempty"`
	Error      string            `json:"error,omitempty"`
}

func (g *gateway) undo(ctx context.Context, j job) {
	id := j.req.Checkpoint
	if id == "" {
		id = g.lastCheckpoint
	}
	if id == "" {
		g.fail(j.line, errors.New("undo: no checkpoint named and no run has changed files yet"))
		return
	}
	rep, err := g.x.Undo(ctx, id, checkpoint.UndoOptions{}) // logged by the executor
	if err != nil && !errors.Is(err, checkpoint.ErrConflict) {
		g.fail(j.line, fmt.Errorf("undo: %w", err))
		return
	}
	ev := undoFinished{Type: "undo_finished", Line: j.line, Checkpoint: id,
		Restored: nonNil(rep.Restored), Removed: nonNil(rep.Removed), Unchanged: rep.Unchanged, Skipped: rep.Skipped}
	if err != nil {
		// A conflict still restored everything else; say what was skipped.
		ev.Error = err.Error()
	}
	g.out.writeJSON(ev)
}

// errorEvent reports a request that could not be served.
type errorEvent struct {
	Type  string `json:"type"`
	Line  int    `json:"line"`
	Error string `json:"error"`
}

func (g *gateway) fail(line int, err error) {
	g.logger.Warn("headless: request failed", "line", line, "error", err)
	g.out.writeJSON(errorEvent{Type: "error", Line: line, Error: err.Error()})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lineWriter serialises whole lines from the executor's sink and the
// gateway's own events, so no two lines ever interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lineWriter) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // our own event types always encode
	}
	_, _ = l.Write(append(b, '\n'))
}
