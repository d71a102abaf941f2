package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
)

// Executor runs agent turns. It only wires the sub-handlers (stream
// processor, tool runner, terminal and file-edit handlers, summary and
// prompt builders) and runs the loop; each of them owns its part.
//
// An Executor may run several turns, one after another or concurrently;
// "allow for this session" grants and the checkpoint session are shared
// by its runs.
type Executor struct {
	// mu guards the settings Update replaces: cfg, host, safety and the
	// context layer's userTools and skills. A run copies them once, when
	// it starts.
	mu          sync.RWMutex
	updateMu    sync.Mutex // one Update at a time
	cfg         Config
	host        Config // the Config as the host gave it (defaults filled), for Update
	grants      *approval.Grants
	checkpoints *checkpoint.Manager
	session     string
	safety      *safety.Policy
	branch      sessionBranch // GitBranch's branch, once the first run made it

	capsMu sync.Mutex
	caps   *llm.Capabilities

	executorContext
}

// New checks cfg and returns an Executor.
func New(cfg Config) (*Executor, error) {
	e := &Executor{grants: cfg.Grants, checkpoints: cfg.Checkpoints, session: cfg.Session}
	if err := e.configure(cfg); err != nil {
		return nil, err
	}
	if e.grants == nil {
		e.grants = &approval.Grants{}
	}
	if e.session == "" {
		e.session = newID("sess_")
	}
	if e.checkpoints == nil && cfg.Workspace != nil {
		m, err := checkpoint.New(cfg.Workspace, checkpoint.NewMemoryStore(), checkpoint.WithLogger(e.cfg.Logger))
		if err != nil {
			return nil, fmt.Errorf("agent: in-memory checkpoints: %w", err)
		}
		e.checkpoints = m
	}
	return e, nil
}

// Checkpoints returns the manager holding the runs' checkpoints, for
// undo: Checkpoints().Open(ctx, result.CheckpointID) then Undo.
func (e *Executor) Checkpoints() *checkpoint.Manager { return e.checkpoints }

// Undo restores every file a run changed (Result.CheckpointID) to what it
// was before the run, and removes the files the run created. Files
// someone else changed since are skipped and reported (errors.Is
// checkpoint.ErrConflict); pass checkpoint.UndoOptions{Force: true} only
// after showing the user that report.
func (e *Executor) Undo(ctx context.Context, checkpointID string, opts checkpoint.UndoOptions) (checkpoint.UndoReport, error) {
	if e.checkpoints == nil || checkpointID == "" {
		return checkpoint.UndoReport{}, fmt.Errorf("%w: no checkpoint %q", checkpoint.ErrNotFound, checkpointID)
	}
	cp, err := e.checkpoints.Open(ctx, checkpointID)
	if err != nil {
		return checkpoint.UndoReport{}, err
	}
	rep, err := cp.Undo(ctx, opts)
	e.config().Logger.Info("agent: undo", "checkpoint", checkpointID, "restored", len(rep.Restored), "removed", len(rep.Removed), "skipped", len(rep.Skipped), "err", err)
	return rep, err
}

// Keep accepts a run's changes: its checkpoint closes and can no longer
// be undone.
func (e *Executor) Keep(ctx context.Context, checkpointID string) error {
	if e.checkpoints == nil || checkpointID == "" {
		return fmt.Errorf("%w: no checkpoint %q", checkpoint.ErrNotFound, checkpointID)
	}
	cp, err := e.checkpoints.Open(ctx, checkpointID)
	if err != nil {
		return err
	}
	return cp.Keep(ctx)
}

// Run performs one user turn: it streams the model, runs the calls it
// asks for, feeds the results back and repeats until the model is done or
// a guard stops it. Every step goes to Config.Sink as it happens. The
// Result is returned even when err is non-nil (cancellation, a model or
// sink failure), with what the run achieved.
func (e *Executor) Run(ctx context.Context, in Input) (*Result, error) {
	return e.run(ctx, in, e.config().Sink)
}

func (e *Executor) run(ctx context.Context, in Input, sink event.Sink) (*Result, error) {
	r, err := e.wire(ctx, in, sink)
	if err != nil {
		return nil, err
	}
	stop, err := r.start(ctx)
	if err == nil {
		stop, err = r.loop(ctx)
	}
	return r.finish(ctx, stop, err)
}

// capabilities asks the model once per Executor; a failure is logged and
// treated as "no native tools", which text mode handles.
func (e *Executor) capabilities(ctx context.Context) llm.Capabilities {
	e.capsMu.Lock()
	defer e.capsMu.Unlock()
	if e.caps != nil {
		return *e.caps
	}
	cfg := e.config()
	c, err := llm.CapabilitiesOf(ctx, cfg.Model)
	if err != nil {
		cfg.Logger.Warn("agent: cannot read model capabilities; assuming text tool calling", "err", err)
		return llm.Capabilities{}
	}
	e.caps = &c
	return c
}

// noNativeTools remembers that the model cannot take tool specs.
func (e *Executor) noNativeTools() {
	e.capsMu.Lock()
	defer e.capsMu.Unlock()
	c := llm.Capabilities{}
	if e.caps != nil {
		c = *e.caps
	}
	c.Tools = false
	e.caps = &c
}

// start emits run_started and creates the session branch.
func (r *run) start(ctx context.Context) (event.StopReason, error) {
	r.emit(event.RunStarted{RunID: r.id, Mode: string(r.mode), ToolCalling: string(r.calling), Prompt: r.in.Prompt, Tools: r.offered.Names()})
	r.announceContext()
	if r.branches != nil {
		name, base, continued, err := r.branches.ensure(ctx, &r.e.branch, r.cfg.Workspace.Root(), r.in.Prompt)
		if err != nil {
			return event.StopError, err
		}
		r.branch = name
		r.emit(event.BranchCreated{Branch: name, Base: base, Continued: continued})
	}
	return "", nil
}

// loop is the agent loop: one model call per iteration, then the calls
// it asked for, until completion, a guard, cancellation or the limit.
func (r *run) loop(ctx context.Context) (event.StopReason, error) {
	for r.iter < r.max {
		// The iterations done so far are kept before the next model
		// call, the long wait in which a worker is most likely to die.
		r.saveIteration(ctx)
		if err := r.sinkErr(); err != nil {
			return event.StopError, err
		}
		r.iter++
		if err := r.beforeCall(ctx); err != nil {
			if ctx.Err() != nil {
				return event.StopCanceled, context.Cause(ctx)
			}
			return event.StopError, fmt.Errorf("agent: compaction: %w", err)
		}
		sr, err := r.stream.run(ctx, r.cfg.Model.Chat(ctx, r.request()), r.cfg.Clock())
		r.meter.observe(sr.Usage, len(r.msgs))
		r.usage.PromptTokens += sr.Usage.PromptTokens
		r.usage.CompletionTokens += sr.Usage.CompletionTokens
		if err != nil && r.fallBackToText(err, sr) {
			continue
		}
		if err != nil {
			r.keepPartial(sr)
			if ctx.Err() != nil {
				return event.StopCanceled, context.Cause(ctx)
			}
			return event.StopError, fmt.Errorf("agent: model: %w", err)
		}
		r.noteText(sr.Display)
		x := extractCalls(r.calling, sr, r.iter)
		r.debugResponse(sr, x)
		r.history = append(r.history, assistantMessage(r.calling, sr, x))

		// Every call the parser could not read, and every call it had to
		// repair, is reported, whether or not other calls came with it.
		if len(x.problems) > 0 {
			r.emit(event.Notice{Kind: event.NoticeParseError, Text: strings.Join(x.problems, "\n\n")})
		}
		if len(x.notRun) > 0 {
			r.emit(event.Notice{Kind: event.NoticeCallNotRun, Text: strings.Join(x.notRun, "\n\n")})
		}
		for _, c := range x.calls {
			if c.Repaired {
				r.emit(event.Notice{Kind: event.NoticeCallRepaired, Text: fmt.Sprintf("The %s call (%s) was cut off or malformed; it was repaired before being judged: %s", c.Name, c.ID, excerpt(string(c.Args), 200))})
			}
		}
		if len(x.calls) == 0 {
			switch {
			case len(x.problems) > 0 || len(x.notRun) > 0:
				r.history = append(r.history, resultMessages(r.calling, nil, x.toModel())...)
				if r.guard.noteParseFailure() {
					r.pivot()
				}
				continue
			case sr.Stop == llm.StopLength && !sr.Complete:
				r.note(event.NoticeTruncated, "Your message was cut off by the length limit. Continue exactly where you stopped.")
				continue
			case r.refuseCompletion():
				continue
			}
			return event.StopCompleted, nil
		}

		batch := r.runner.runBatch(ctx, fmt.Sprintf("g%d", r.iter), x.calls)
		r.results = append(r.results, batch.results...)
		r.debugResults(batch.results)
		r.memory.observe(batch.results)
		repeats, pivot := r.guard.observe(&batch)
		r.history = append(r.history, resultMessages(r.calling, batch.results, x.toModel())...)
		if batch.wrote {
			r.wrote = true
			r.emit(filesChanged(ctx, r.cp, r.cfg.Logger))
		}
		switch {
		case ctx.Err() != nil:
			return event.StopCanceled, context.Cause(ctx)
		case repeats >= r.maxRepeat:
			r.emit(event.Notice{Kind: event.NoticeRepeatedFailure, Text: fmt.Sprintf("Stopped: the same call failed %d times.", repeats)})
			return event.StopRepeatedFailure, nil
		case sr.Complete && !batch.allFailed && !r.refuseCompletion():
			// Calls written together with the signal have run; when they
			// all failed, the model has to see why before it may finish.
			return event.StopCompleted, nil
		}
		if pivot {
			r.pivot()
		}
	}
	return event.StopMaxIterations, nil
}

// fallBackToText handles a model that claimed native tool support but
// refuses tool specs (llm.ErrNoToolSupport) before saying anything: the
// run, and later runs of the Executor, switch to text tool calling and
// the iteration is retried.
func (r *run) fallBackToText(err error, sr streamResult) bool {
	if !errors.Is(err, llm.ErrNoToolSupport) || r.calling != ToolCallingNative || r.cfg.ToolCalling != ToolCallingAuto ||
		sr.Content != "" || sr.Thinking != "" || len(sr.Native) > 0 {
		return false
	}
	r.e.noNativeTools()
	r.setCalling(ToolCallingText)
	r.iter--
	r.emit(event.Notice{Kind: event.NoticeToolCallingFallback, Text: "The model refused native tool definitions; switched to text tool calling."})
	r.cfg.Logger.Warn("agent: model refused native tools; using text tool calling", "model", r.cfg.ModelName, "err", err)
	return true
}

// refuseCompletion is write validation: when the task asks
// for changes and no write succeeded, completion is refused once with a
// reminder to the model.
func (r *run) refuseCompletion() bool {
	if !r.needWrites || r.wrote || r.reminded {
		return false
	}
	r.reminded = true
	r.note(event.NoticeWriteReminder, writeReminder)
	return true
}

func (r *run) pivot() { r.note(event.NoticePivotGuidance, fmt.Sprintf(pivotGuidance, r.pivotAfter)) }

// note adds a message of the loop's own to the history and reports it.
func (r *run) note(kind event.NoticeKind, text string) {
	r.history = append(r.history, userNote(text))
	r.emit(event.Notice{Kind: kind, Text: text})
}

// keepPartial keeps what an interrupted response said, so the next turn
// knows it; calls are dropped because they never got results.
func (r *run) keepPartial(sr streamResult) {
	r.noteText(sr.Display)
	if sr.Content != "" || sr.Thinking != "" {
		r.history = append(r.history, llm.Message{Role: llm.RoleAssistant, Content: sr.Content, Thinking: sr.Thinking})
	}
}

func (r *run) noteText(t string) {
	if strings.TrimSpace(t) == "" {
		return
	}
	r.lastText = t
	r.allText = append(r.allText, strings.TrimSpace(t))
}

// finish runs the summary builder and closes the run.
func (r *run) finish(ctx context.Context, stop event.StopReason, err error) (*Result, error) {
	res := &Result{RunID: r.id, Mode: r.mode, ToolCalling: r.calling, StopReason: stop, Iterations: r.iter, Branch: r.branch}
	sctx := ctx
	if ctx.Err() != nil {
		sctx = context.WithoutCancel(ctx) // report what happened even after cancellation
	}
	var out summaryOutput
	if r.iter > 0 || err == nil {
		// A run that failed before asking the model (a dirty tree) has
		// nothing to summarise; run_finished carries the error.
		out = r.summary.finalize(sctx, summaryInput{
			lastText: r.lastText, allText: strings.Join(r.allText, "\n\n"), history: r.fullHistory(),
			results: r.results, changes: r.cp, canceled: ctx.Err() != nil || err != nil,
		})
	}
	r.usage.PromptTokens += out.usage.PromptTokens
	r.usage.CompletionTokens += out.usage.CompletionTokens
	res.FinalMessage, res.Summary, res.FilesChanged, res.CheckpointID = out.final, out.tools, out.files, out.checkpointID
	res.Usage, res.History, res.Memory = r.usage, r.history, r.memory.snapshot()
	if err == nil {
		err = r.sinkErr()
		if err != nil {
			res.StopReason = event.StopError
		}
	}
	fin := event.RunFinished{StopReason: res.StopReason, Iterations: r.iter, Usage: r.usage, CheckpointID: res.CheckpointID}
	if err != nil {
		fin.Error = err.Error()
	}
	r.emitter.ctx = sctx
	r.emit(fin)
	r.cfg.Logger.Debug("agent: run finished", "run", r.id, "stop", res.StopReason, "iterations", r.iter, "err", err)
	if err == nil && errors.Is(r.sinkErr(), ErrSink) {
		err = r.sinkErr()
	}
	return res, err
}

func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
