package agent

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/projectctx"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
)

// executorContext is the Executor's share of the context layer: the
// host's own registry (before skills and the subagent tool were added)
// and the skills by canonical name.
type executorContext struct {
	userTools *tools.Registry
	skills    map[string]Skill
	depth     int         // 0 for a top-level executor, 1 for a subagent
	compactAt atomic.Bool // set by RequestCompaction; taken by the next model call
}

// RequestCompaction asks the running turn (or, when none runs, the next
// one) to compact its conversation before its next model call, whatever
// the threshold says: for a user who types /compact while the agent
// works. The run reports it as a context_compacted event with reason
// "host".
func (e *Executor) RequestCompaction() { e.compactAt.Store(true) }

// extend checks the context layer's config and adds the skills (under
// SkillNamespace), the subagent tool and, in staging mode (which envelope
// tool calling turns on with a Stager of its own), the preview and apply
// tools of tools/fstools to a copy of Config.Tools; the host's registry
// is never modified.
func (e *Executor) extend() error {
	cfg := &e.cfg
	if err := cfg.Compaction.validate(); err != nil {
		return err
	}
	if err := cfg.Subagents.validate(); err != nil {
		return err
	}
	e.userTools = cfg.Tools
	if cfg.ToolCalling == ToolCallingEnvelope && cfg.Staging == nil && cfg.Workspace != nil {
		// The envelope protocol mutates files in two phases: writes are
		// staged, and a token applies them.
		cfg.Staging = approval.NewStager(cfg.Workspace, approval.StagerConfig{Logger: cfg.Logger})
	}
	if len(cfg.Skills) == 0 && cfg.Subagents == nil && cfg.Staging == nil {
		return nil
	}
	reg := cfg.Tools.Filter(func(tools.Spec) bool { return true })
	e.skills = make(map[string]Skill, len(cfg.Skills))
	wrapped := make([]tools.Tool, 0, len(cfg.Skills))
	for _, s := range cfg.Skills {
		if s == nil {
			return fmt.Errorf("%w: nil entry in Config.Skills", ErrConfig)
		}
		wrapped = append(wrapped, registeredSkill(s))
		e.skills[SkillNamespace+tools.NamespaceSep+s.Describe().Name] = s
	}
	if err := reg.RegisterNamespace(SkillNamespace, wrapped...); err != nil {
		return fmt.Errorf("%w: Config.Skills: %w", ErrConfig, err)
	}
	if cfg.Subagents != nil {
		spec := subagentSpec(cfg.Subagents)
		err := reg.Register(tools.Func{Spec: spec, Run: func(context.Context, tools.Call) (tools.Result, error) {
			return tools.Result{}, fmt.Errorf("%w: %s", ErrSkillOutsideRun, SubagentToolName)
		}})
		if err != nil {
			return fmt.Errorf("%w: subagent tool: %w (a tool named %q is already registered)", ErrConfig, err, SubagentToolName)
		}
	}
	if cfg.Staging != nil && cfg.Workspace != nil {
		// The preview and apply tools, unless the host registered its own
		// under their names.
		for _, t := range fstools.Staging(cfg.Workspace, cfg.Staging) {
			if _, _, err := reg.Lookup(t.Describe().Name); err == nil {
				continue
			}
			if err := reg.Register(t); err != nil {
				return fmt.Errorf("%w: staging mode: %w", ErrConfig, err)
			}
		}
	}
	cfg.Tools = reg
	return nil
}

// runContext is a run's share of the context layer.
type runContext struct {
	pb         promptBuilder
	memory     *memoryKeeper
	project    projectctx.Project
	projectErr error
	userText   string // the prompt with the attachments before it
	task       int    // index in history of the run's task message
	compactor  *compactor
	meter      tokenMeter
	limit      int // context length in tokens; 0 when unknown (no budget, no automatic compaction)
	threshold  float64
	budget     promptBudget
	sent       int // len(history) when the last request was sent
	// overflowTold: the context_overflow notice was given this run.
	overflowTold bool
}

// wireContext prepares what the model sees besides the loop's own
// messages: project context, attachments, memory, the prompt builder's
// inputs and the compactor.
func (r *run) wireContext(ctx context.Context, names []string) error {
	cfg, in := r.cfg, r.in
	atts, err := loadAttachments(cfg.Workspace, in.Context)
	if err != nil {
		return err
	}
	r.userText = FormatUserContext(atts, in.Prompt)
	if cfg.Workspace != nil {
		r.project, r.projectErr = projectctx.Discover(cfg.Workspace.FS(), cfg.ProjectContext)
		if r.projectErr != nil {
			cfg.Logger.Warn("agent: project context unavailable", "err", r.projectErr)
		}
	}
	r.memory = &memoryKeeper{mem: in.Memory.Clone()}
	r.pb = promptBuilder{mode: r.spec, calling: r.calling, names: names, guide: r.offered.Guidance, extra: cfg.SystemPrompt, project: r.project.Text}

	cc := cfg.Compaction
	r.meter.count = cc.Counter
	if r.meter.count == nil {
		r.meter.count = llm.EstimateTokens
	}
	r.threshold = cc.Threshold
	if r.threshold == 0 {
		r.threshold = DefaultCompactionThreshold
	}
	// The window is the one the model really runs with: the host's
	// setting, else what the backend asks for (Ollama's num_ctx) or the
	// server reports; it drives the prompt budget, the cutting of large
	// results and compaction alike.
	r.limit = r.e.window(ctx, r.cfg)
	r.compactor = newCompactor(r.cfg, r.meter.count, r.limit)
	return nil
}

// window is the context length to budget with: CompactionConfig's, else
// the model's (llm.Capabilities.ContextLength); 0 when neither is known.
func (e *Executor) window(ctx context.Context, cfg *Config) int {
	if n := cfg.Compaction.ContextLength; n > 0 {
		return n
	}
	return e.capabilities(ctx).ContextLength
}

func newCompactor(cfg *Config, count llm.TokenCounter, limit int) *compactor {
	keep := cfg.Compaction.KeepRecent
	if keep == 0 {
		keep = defaultKeepRecent
	}
	if count == nil {
		count = llm.EstimateTokens
	}
	keepTokens := int(float64(limit) * keep)
	if limit == 0 {
		keepTokens = 8000 // host-triggered compaction of a model with an unknown window
	}
	model, name := cfg.Model, cfg.ModelName
	if cfg.Compaction.Model != nil {
		model, name = cfg.Compaction.Model, cfg.Compaction.ModelName
	}
	return &compactor{
		chat: func(ctx context.Context, req llm.Request) (llm.Response, error) {
			return llm.Collect(model.Chat(ctx, req))
		},
		req: llm.Request{Model: name, Temperature: cfg.Temperature}, count: count,
		keepTokens: keepTokens, instructions: cfg.Compaction.Instructions, logger: cfg.Logger,
	}
}

// systemMessage is the system prompt with the current session memory.
func (r *run) systemMessage() llm.Message {
	pb := r.pb
	pb.memory = r.memory.render()
	return llm.Message{Role: llm.RoleSystem, Content: pb.system()}
}

type authorizeFunc = func(ctx context.Context, req approval.Request) (approval.Approved, error)

// specialHandlers are the calls the agent runs itself: skills and the
// subagent tool, which need the run (events, memory, terminal handler).
func (r *run) specialHandlers(term callHandler, authorize authorizeFunc) map[string]callHandler {
	if len(r.st.skills) == 0 && r.cfg.Subagents == nil {
		return nil
	}
	env := SkillEnv{Mode: r.mode, Workspace: r.cfg.Workspace, Emit: r.emit, SetPlan: r.memory.setPlan}
	if term != nil && !r.spec.ReadOnly {
		env.RunCommand = commandRunner(r.runner.prepare, term)
	}
	out := make(map[string]callHandler, len(r.st.skills)+1)
	for name, s := range r.st.skills {
		h := skillHandler{skill: s, env: env}
		if _, self := s.(selfJudging); !self && !s.Describe().ReadOnly && !r.spec.ReadOnly {
			h.authorize = authorize // like any tool that may change things: confirm-level
		}
		out[name] = h
	}
	if r.cfg.Subagents != nil {
		out[SubagentToolName] = subagentHandler{e: r.e, parent: *r.cfg, userTools: r.st.userTools, parentMode: r.mode, emit: r.emit}
	}
	return out
}

// announceContext follows run_started with the project files used.
func (r *run) announceContext() {
	if len(r.project.Files) > 0 {
		r.emit(event.ProjectContextLoaded{Files: r.project.Files})
	}
	if r.projectErr != nil {
		r.emit(event.Notice{Kind: event.NoticeProjectContext, Text: r.projectErr.Error()})
	}
}

// beforeCall runs before each model call: it compacts the conversation
// when it nears the context length, then refreshes the system prompt
// with the current memory.
func (r *run) beforeCall(ctx context.Context) error {
	if err := r.fitPrompt(); err != nil {
		return err
	}
	r.announceWindow()
	r.msgs[0] = r.systemMessage()
	r.system = r.msgs[0]
	r.capUnsent()
	defer func() { r.sent = len(r.history) }()
	asked := r.e.compactAt.Swap(false)
	if (r.limit <= 0 || r.cfg.Compaction.Disabled) && !asked {
		return nil
	}
	if r.meter.fixed == 0 {
		r.meter.fixed = llm.EstimateToolSpecTokens(r.specs)
	}
	msgs := append([]llm.Message{r.system}, r.history...)
	used := r.meter.tokens(msgs)
	if !asked && float64(used) < r.threshold*float64(r.limit) {
		return nil
	}
	reason := "auto"
	if asked {
		reason = "host"
	}
	cp := *r.compactor
	cp.lastTurnOnly = asked // the user asked: everything but the latest turn goes
	c, usage, err := cp.compact(ctx, r.history, r.task, "")
	r.usage.PromptTokens += usage.PromptTokens
	r.usage.CompletionTokens += usage.CompletionTokens
	switch {
	case errors.Is(err, ErrNothingToCompact):
		r.cfg.Logger.Debug("agent: over the compaction threshold, but nothing is old enough to summarise", "tokens", used, "limit", r.limit)
		if asked {
			r.emit(event.Notice{Kind: event.NoticeCompactionSkipped, Text: "Nothing to compact yet: the conversation holds only the task and its latest turn."})
		}
		if r.limit > 0 && used >= r.limit {
			r.overflowNotice(used)
		}
		return nil
	case err != nil:
		return err
	}
	r.history = c.History
	r.task = 0
	if len(c.History) > 1 && c.History[1].Role == llm.RoleUser && c.History[1].Content == r.userText {
		r.task = 1
	} else {
		r.task = -1 // the task is inside the recent turns, verbatim
		for i, m := range c.History {
			if m.Role == llm.RoleUser && m.Content == r.userText {
				r.task = i
			}
		}
	}
	// Before and after are reported on the same scale: a backend's
	// reported count may leave out what the estimate includes.
	before := max(used, r.meter.fixed+r.meter.count(msgs))
	r.meter.reset()
	after := r.meter.tokens(append([]llm.Message{r.system}, r.history...))
	r.emit(event.ContextCompacted{Reason: reason, TokensBefore: before, TokensAfter: after,
		ContextLength: r.limit, Summarized: c.Summarized, Kept: c.Kept, Summary: c.Summary, Fallback: c.Fallback})
	if r.limit > 0 && after >= r.limit {
		r.overflowNotice(after)
	}
	return nil
}

// overflowNotice says, once a run, that the task and the latest turn
// alone overflow the window: they are never cut, so the model (Ollama
// drops the start of the prompt) may not see all of it.
func (r *run) overflowNotice(tokens int) {
	if r.overflowTold {
		return
	}
	r.overflowTold = true
	r.cfg.Logger.Warn("agent: the conversation exceeds the context length even when compacted", "tokens", tokens, "limit", r.limit)
	r.emit(event.Notice{Kind: event.NoticeContextOverflow, Text: fmt.Sprintf("The task and the latest turn alone take about %d tokens of a %d-token context; the model may not see all of it.", tokens, r.limit)})
}

// CompactOptions tune a host-triggered compaction.
type CompactOptions struct {
	// Task is the index in History of a message to keep verbatim (the
	// user's current task); negative means the last user message that is
	// not a tool result.
	Task int
	// Instructions focus the summary ("keep the schema decisions").
	Instructions string
}

// Compact summarises the older turns of history (a Result.History or a
// session's messages) with the model, keeping the task and the recent
// turns verbatim, and returns the new history and the summary for the
// host to show. It fails with ErrNothingToCompact when there is nothing
// older than the recent turns.
func (e *Executor) Compact(ctx context.Context, history []llm.Message, opts CompactOptions) (Compaction, error) {
	var h []llm.Message
	for _, m := range history {
		if m.Role != llm.RoleSystem {
			h = append(h, m)
		}
	}
	task := opts.Task
	if task < 0 || task >= len(h) {
		task = lastTask(h)
	}
	cfg := e.config()
	c, _, err := newCompactor(&cfg, cfg.Compaction.Counter, e.window(ctx, &cfg)).compact(ctx, h, task, opts.Instructions)
	return c, err
}

// lastTask finds the last user message that is neither a tool result
// (text and envelope modes send them as user messages) nor a summary.
func lastTask(h []llm.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		m := h[i]
		if m.Role != llm.RoleUser {
			continue
		}
		c := m.Content
		if hasAnyPrefix(c, "<tool_result", "Action results:", summaryPrefix[:20]) {
			continue
		}
		return i
	}
	return -1
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}

// ProjectContext discovers the project context a run would use now, for
// a UI that lists the files before the first prompt. Without a
// workspace it is empty.
func (e *Executor) ProjectContext() (projectctx.Project, error) {
	cfg := e.config()
	if cfg.Workspace == nil {
		return projectctx.Project{}, nil
	}
	return projectctx.Discover(cfg.Workspace.FS(), cfg.ProjectContext)
}
