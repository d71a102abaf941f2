package agent

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/projectctx"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// Mode is what kind of run the executor performs.
type Mode string

const (
	// ModeAgent may edit files and run commands, with approvals and
	// checkpoints. It is the default.
	ModeAgent Mode = "agent"
	// ModeExplore answers questions about the code with read-only tools.
	ModeExplore Mode = "explore"
	// ModePlan writes a plan with read-only tools; nothing is changed.
	ModePlan Mode = "plan"
	// ModeReview reviews code for bugs and security problems with
	// read-only tools, plus read-only git commands.
	ModeReview Mode = "review"
)

// ReadOnly reports whether m is a built-in read-only mode (explore, plan,
// review). A host's modes say so in their ModeSpec.
func (m Mode) ReadOnly() bool { return m == ModeExplore || m == ModePlan || m == ModeReview }

// ToolCalling is how the model's tool calls travel.
type ToolCalling string

const (
	// ToolCallingAuto picks native when the model reports tool support,
	// text otherwise.
	ToolCallingAuto ToolCalling = ""
	// ToolCallingNative sends tool specs in the request and reads the
	// backend's structured calls.
	ToolCallingNative ToolCalling = "native"
	// ToolCallingText describes the tools in the system prompt and parses
	// <tool_call>{…}</tool_call> (and the other syntaxes toolcall knows)
	// from the model's text, for models without native tool calling.
	ToolCallingText ToolCalling = "text"
	// ToolCallingEnvelope asks for exactly one fenced ```yips-agent JSON
	// envelope per message, for small models that follow one fixed format.
	ToolCallingEnvelope ToolCalling = "envelope"
)

// Default iteration limits: enough for a real task, bounded so a
// confused model stops; read-only modes need fewer rounds.
const (
	DefaultMaxIterations         = 25
	DefaultReadOnlyMaxIterations = 10
	// DefaultEnvelopeRounds bounds a run in envelope tool calling, whose
	// small models chain fewer, surer rounds.
	DefaultEnvelopeRounds = 6
)

// Config wires an Executor. Model is required; Workspace is required for
// file edits and commands. Every other zero value is useful. The
// Executor reads its settings at the start of each run; Executor.Update
// changes them for the next runs (all but Workspace, Checkpoints, Grants
// and Session).
type Config struct {
	// Model streams the responses. ModelName is passed as Request.Model.
	Model     llm.Model
	ModelName string

	// Tools are what the model may call. Read-only modes offer only the
	// tools whose Spec is ReadOnly (review adds the command tool for
	// read-only git commands) and refuse any other call in code.
	Tools *tools.Registry

	// Workspace confines file edits and judges their sensitivity.
	Workspace *safety.Workspace

	// CommandRules decide which commands run without asking. With the zero
	// rules every command is confirm-level; set AllowReadOnly to let
	// ls, cat, git status and the like run without asking.
	CommandRules safety.CommandRules
	// CommandDir, when set, reports where the next command starts for a
	// tool that declares a command but not its directory. The built-in
	// terminal tool declares its own (the shell keeps `cd` between
	// commands), so commands are judged and snapshotted where they really
	// run without it. Nil means the workspace root.
	CommandDir func() string
	// Safety judges every action: allow, confirm or deny, with reasons.
	// Nil means safety.Policy{Workspace: Workspace, Rules: CommandRules};
	// set it for DenyCritical, AutoApproveSensitiveEdits and the other
	// knobs. New copies it and fills its unset Workspace, Rules and
	// Logger from this Config; it rejects a Safety whose Workspace or
	// Rules differ from Workspace or CommandRules, and one with Headless
	// set: who answers a confirm is Policy's to say (approval.Headless).
	Safety *safety.Policy

	// Policy decides who answers the actions Safety wants confirmed:
	// approval.Interactive() (nil) asks Approver, approval.AutoApprove()
	// lets them run, approval.Headless(…) denies them for a host with
	// nobody to ask. Critical actions are asked whatever the policy says.
	Policy approval.Policy
	// Approver asks a person. Nil means confirm-level actions are denied.
	Approver approval.Approver
	// ApprovalTimeout bounds each question to Approver; zero means
	// approval.DefaultTimeout, negative means no limit. A timeout denies.
	ApprovalTimeout time.Duration
	// Grants hold "allow for this session" answers; nil means a set
	// private to this Executor.
	Grants *approval.Grants

	// Staging, when set, turns on staging mode: calls that would
	// write files only stage the exact bytes and return a token with the
	// diff; the apply tool (offered in this mode, with the previews) or
	// Executor.ApplyChange applies a token once, if the file has not
	// changed. A headless host passes the same Stager to
	// approval.Headless, restricted to the tokens its client approved.
	// A token holds new file content, so calls that move or remove files
	// (a rename) are refused in this mode, with a message saying so.
	Staging *approval.Stager

	// ToolMiddleware wraps the agent's tool handler, the first outermost:
	// every prepared call passes through it (audit, rate limits, a guard
	// of the host's own) before the agent judges and runs it.
	ToolMiddleware []ToolMiddleware

	// Checkpoints snapshot every file before the agent changes it. Nil
	// means an in-memory store: undo works while the process lives.
	Checkpoints *checkpoint.Manager
	// Session groups this executor's checkpoints; empty means a random id.
	Session string

	// Sink receives every event in order. Nil discards them.
	Sink event.Sink

	// Mode is the default mode; Input.Mode overrides it per run.
	Mode Mode
	// Modes are the host's own modes (Coder, Ask, Architect…), selected by
	// name like the built-in ones; one named like a built-in replaces it.
	Modes []ModeSpec
	// ToolCalling forces a tool-calling mode; the zero value picks one
	// from the model's capabilities.
	ToolCalling ToolCalling

	// MaxIterations bounds the model calls of a run; zero means 25, 10 in
	// read-only modes, or 6 (DefaultEnvelopeRounds) in envelope tool
	// calling.
	MaxIterations int
	// ToolTimeout bounds each tool call; zero leaves it to the registry.
	ToolTimeout time.Duration
	// Temperature and Think are passed to the model when set.
	Temperature *float64
	Think       *bool
	// SystemPrompt is appended to the built-in system prompt.
	SystemPrompt string

	// Parallel is how many read-only calls of one batch may run at once;
	// zero means 4, one runs everything sequentially.
	Parallel int
	// MaxRepeatedFailures stops the run when the same call (name and
	// arguments) has failed this many times; zero means 3.
	MaxRepeatedFailures int
	// PivotAfter injects pivot guidance after this many consecutive rounds
	// in which every action failed or was denied; zero means 2.
	PivotAfter int
	// RequireWrites overrides write validation: nil guesses from the
	// prompt's verbs (create, fix, rename…), true always requires a
	// successful write before completion, false never does.
	RequireWrites *bool

	// GitBranch, when set, creates a branch for the session (this
	// Executor) on its first run; later runs continue on it.
	GitBranch *GitBranch

	// ProjectContext controls the discovery of AGENTS.md, README, build
	// manifests… for the system prompt; the zero value discovers them.
	ProjectContext projectctx.Config
	// Compaction controls context compaction; the zero value compacts at
	// 80% of the model's reported context length.
	Compaction CompactionConfig
	// Skills are offered beside the tools, as "skill__<name>" (see
	// TodosSkill and BuildSkill).
	Skills []Skill
	// Subagents, when set, offers the subagent tool.
	Subagents *SubagentConfig

	// Clock drives the 32 ms text throttle and thinking durations; nil
	// means time.Now.
	Clock func() time.Time
	// Logger receives security-relevant decisions (approvals, denials,
	// undo) and warnings, and is handed to the safety policy, gate and
	// checkpoints the Executor builds. At debug level it also gets one
	// record per model call (what the model sent, what was parsed, what
	// was refused and why). Nil means nothing is logged: a library writes
	// nothing unless its host asks.
	Logger *slog.Logger
}

// Input is one user turn.
type Input struct {
	Prompt string
	Images []llm.Image
	// History is the conversation so far (Result.History of the previous
	// run), without system messages: the executor builds its own.
	History []llm.Message
	// Mode overrides Config.Mode for this run.
	Mode Mode
	// Context is code the user attached (selections and whole files); it
	// is put before Prompt with "already provided" labels.
	Context []Attachment
	// Memory is the session memory so far (Result.Memory of the previous
	// run); nil starts empty.
	Memory *Memory
}

// Result is what a run produced.
type Result struct {
	RunID        string
	Mode         Mode
	ToolCalling  ToolCalling
	FinalMessage string
	// Summary lists the last tool results, one per line.
	Summary      string
	FilesChanged []event.FileChange
	// CheckpointID names the checkpoint holding the run's pre-images, for
	// undo (checkpoint.Manager.Open(id).Undo); empty when nothing changed.
	CheckpointID string
	Branch       string
	StopReason   event.StopReason
	Iterations   int
	Usage        llm.Usage
	// History is the conversation after the run, without system
	// messages: pass it as Input.History to continue.
	History []llm.Message
	// Memory is the session memory after the run: pass it as
	// Input.Memory to continue.
	Memory *Memory
}

func (c *Config) maxIterations(m ModeSpec, calling ToolCalling) int {
	switch {
	case m.MaxIterations > 0:
		return m.MaxIterations
	case c.MaxIterations > 0:
		return c.MaxIterations
	case calling == ToolCallingEnvelope:
		return DefaultEnvelopeRounds
	case m.ReadOnly:
		return DefaultReadOnlyMaxIterations
	}
	return DefaultMaxIterations
}

func (c *Config) validate() error {
	if c.Model == nil {
		return fmt.Errorf("%w: Config.Model is nil; pass an llm.Model (ollama, openai or llmtest)", ErrConfig)
	}
	if err := c.validateModes(); err != nil {
		return err
	}
	if c.Mode != "" {
		if _, err := c.modeSpec(c.Mode); err != nil {
			return err
		}
	}
	switch c.ToolCalling {
	case ToolCallingAuto, ToolCallingNative, ToolCallingText, ToolCallingEnvelope:
	default:
		return fmt.Errorf("%w: unknown tool calling %q (want native, text or envelope, or empty for automatic)", ErrConfig, c.ToolCalling)
	}
	if c.MaxIterations < 0 || c.Parallel < 0 || c.MaxRepeatedFailures < 0 || c.PivotAfter < 0 {
		return fmt.Errorf("%w: negative limit", ErrConfig)
	}
	return nil
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}
