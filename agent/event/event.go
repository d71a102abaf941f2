package event

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

// Event is one step of a run, reported in order to the host's [Sink].
// Events are plain structs; Type names them in snake_case, the same
// name [Marshal] writes as the "type" field of the JSON form.
//
// A host persists and displays the very same sequence, so what a user
// sees after a reload is what they saw live: nothing is displayed that
// was not persisted, by construction.
type Event interface {
	Type() string
}

// Sink receives every event of a run, in order, from one goroutine at a
// time. An error stops the run at the next safe point (between tool
// calls or iterations) and Run returns it: an event that could not be
// persisted must not be followed by actions the user will never see.
type Sink interface {
	Emit(ctx context.Context, e Event) error
}

// SinkFunc adapts a function to [Sink].
type SinkFunc func(ctx context.Context, e Event) error

// Emit calls f.
func (f SinkFunc) Emit(ctx context.Context, e Event) error { return f(ctx, e) }

// RunStarted opens a run.
type RunStarted struct {
	RunID       string   `json:"run_id"`
	Mode        string   `json:"mode"`         // the mode's name: agent, explore, plan, review or the host's own
	ToolCalling string   `json:"tool_calling"` // how calls travel: native, text or envelope
	Prompt      string   `json:"prompt"`
	Tools       []string `json:"tools"`
}

// BranchCreated reports the git branch created for the session.
type BranchCreated struct {
	Branch string `json:"branch"`
	// Continued is set when a later run of the session continues on the
	// branch its first run created.
	Continued bool   `json:"continued,omitempty"`
	Base      string `json:"base,omitempty"` // the branch or commit it starts from
}

// ThinkingDelta is a piece of the model's reasoning.
type ThinkingDelta struct {
	Text string `json:"text"`
}

// ThinkingCollapsed closes the reasoning block: "Thought for 8s". The
// duration runs from the start of the iteration to the last thinking
// token, so time the backend spent buffering a tool call is not counted.
type ThinkingCollapsed struct {
	DurationMS int64 `json:"duration_ms"`
}

// Duration is how long the model thought.
func (e ThinkingCollapsed) Duration() time.Duration {
	return time.Duration(e.DurationMS) * time.Millisecond
}

// TextDelta is display-safe prose: tool-call markup, reasoning and the
// [TASK_COMPLETE] signal are never in it.
type TextDelta struct {
	Text string `json:"text"`
}

// FileWriting says a write call has named its file while its content is
// still streaming: "Writing main.go…".
type FileWriting struct {
	Tool string `json:"tool"`
	Path string `json:"path"`
}

// ToolCallStarted says the model began writing a tool call (text mode) or
// delivered one (native mode); the call is not complete or judged yet.
type ToolCallStarted struct {
	Name  string `json:"name,omitempty"`
	Index int    `json:"index"`
}

// ProgressGroupStarted opens the group a batch of tool actions is shown
// under ("Editing files", "Searching codebase", …).
type ProgressGroupStarted struct {
	GroupID string `json:"group_id"`
	Title   string `json:"title"`
}

// ProgressGroupFinished closes a group. Status is "success" when every
// action succeeded, otherwise the worst status seen.
type ProgressGroupFinished struct {
	GroupID string       `json:"group_id"`
	Title   string       `json:"title"`
	Status  ActionStatus `json:"status"`
}

// ActionStatus is the state of one tool action.
type ActionStatus string

const (
	StatusRunning ActionStatus = "running"
	StatusPending ActionStatus = "pending" // waiting for approval
	StatusSuccess ActionStatus = "success"
	StatusError   ActionStatus = "error"
	StatusDenied  ActionStatus = "denied"
	StatusSkipped ActionStatus = "skipped" // not run, or nothing to do
)

// ToolAction reports one tool call's state, each call first as running
// (and pending while it waits for approval), then exactly once as
// success, error, denied or skipped.
type ToolAction struct {
	GroupID   string       `json:"group_id,omitempty"`
	CallID    string       `json:"call_id"`
	Tool      string       `json:"tool"`
	Status    ActionStatus `json:"status"`
	Title     string       `json:"title"`            // "Reading main.go", "Ran go test ./..."
	Detail    string       `json:"detail,omitempty"` // one line: lines read, exit code, the reason for a denial
	Path      string       `json:"path,omitempty"`   // workspace-relative file, for click-to-open
	StartLine int          `json:"start_line,omitempty"`
	// Chunks are the line ranges a chunked file read streamed, one
	// click-to-open entry each.
	Chunks       []tools.LineRange `json:"chunks,omitempty"`
	Added        int               `json:"added,omitempty"`
	Removed      int               `json:"removed,omitempty"`
	CheckpointID string            `json:"checkpoint_id,omitempty"` // set on file edits, which undo per checkpoint
	AutoApproved bool              `json:"auto_approved,omitempty"`
	Output       string            `json:"output,omitempty"` // the result text the model receives (final statuses)
	// Kind is what kind of work the call is, as its tool titles it.
	Kind tools.ActionKind `json:"kind,omitempty"`
	// Arguments are the call's normalised arguments, on the running (and
	// approval-pending) action, for a host that shows its own tools' calls
	// its own way.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Metadata is the structured content of the result (a staged
	// change's token and diffPreview), on the final action.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// ToolProgress is live news from a call that is still running, between
// its "running" ToolAction and its final one: a chunk of a file read
// ("Reading main.go lines 101–200"), new lines of a command's output, or
// a search's matches per file (so a UI can draw the result tree). Events
// of calls that run concurrently may interleave; CallID tells them apart.
type ToolProgress struct {
	CallID    string `json:"call_id"`
	Tool      string `json:"tool"`
	Title     string `json:"title,omitempty"`
	Path      string `json:"path,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	// Output is new command output; Dropped counts lines (or files, with
	// Files) that were produced but left out to keep events small.
	Output  string            `json:"output,omitempty"`
	Dropped int               `json:"dropped,omitempty"`
	Files   []tools.FileCount `json:"files,omitempty"`
	// Done and Total are how far a call has come in its own units (pages
	// of a PDF, an MCP tool's steps), for a progress bar; Total is 0 when
	// the tool does not know. The tool's own words are the Title.
	Done  float64 `json:"done,omitempty"`
	Total float64 `json:"total,omitempty"`
}

func (ToolProgress) Type() string { return "tool_progress" }

// ApprovalRequested is shown as an approval card; answer it through the
// Approver. The request reaches the Approver just after this event is
// delivered, so a UI answering by ID (approval.Manager.Resolve) does so
// from its own goroutine; approval.Manager.Notify reports the moment the
// request is registered, if the UI needs it.
type ApprovalRequested struct {
	ID      string           `json:"id"`
	CallID  string           `json:"call_id,omitempty"`
	Display approval.Display `json:"display"`
}

// ApprovalResolved closes an approval card.
type ApprovalResolved struct {
	ID     string          `json:"id"`
	CallID string          `json:"call_id,omitempty"`
	Choice approval.Choice `json:"choice"`
	Reason string          `json:"reason,omitempty"` // "timed out", the user's reason…
}

// FileChange is one file's net change in a run.
type FileChange struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	Kind    string `json:"kind"` // added, modified, deleted, renamed
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// FilesChanged lists the files the run has changed so far, net of the
// checkpoint's pre-images. It is sent after every batch that wrote, and
// once more at the end with Final set.
type FilesChanged struct {
	CheckpointID string       `json:"checkpoint_id,omitempty"`
	Files        []FileChange `json:"files"`
	Added        int          `json:"added"`
	Removed      int          `json:"removed"`
	Final        bool         `json:"final,omitempty"`
}

// FinalMessage is the assistant's answer for the run.
type FinalMessage struct {
	Text    string `json:"text"`
	Summary string `json:"summary,omitempty"` // one line per recent tool result
}

// Notice reports something the loop did on its own: a reminder that the
// task needs a write, pivot guidance, a stopped repetition, a call it
// repaired or a context it could not build.
type Notice struct {
	Kind NoticeKind `json:"kind"`
	Text string     `json:"text"`
}

// NoticeKind says what a Notice is about. The agent emits only the
// constants below; a skill may emit kinds of its own (NoticeKind("…")),
// so a UI should show an unknown kind's Text rather than drop it.
type NoticeKind string

const (
	// NoticeWriteReminder: the model said it was done but the task asked
	// for a change and nothing was written; the loop goes on.
	NoticeWriteReminder NoticeKind = "write_reminder"
	// NoticePivotGuidance: every action of the last rounds failed or was
	// denied; the model is told to try another approach.
	NoticePivotGuidance NoticeKind = "pivot_guidance"
	// NoticeRepeatedFailure: the same failing call kept coming; the run
	// stops with StopRepeatedFailure.
	NoticeRepeatedFailure NoticeKind = "repeated_failure"
	// NoticeParseError: calls written in the model's text could not be
	// read; the problems go back to the model.
	NoticeParseError NoticeKind = "parse_error"
	// NoticeCallNotRun: a call block in the model's text was shown rather
	// than made (an example, a quotation, code, a hedged call) and was not
	// run; the model is told, in case it meant the call.
	NoticeCallNotRun NoticeKind = "call_not_run"
	// NoticeCallRepaired: a call was cut off or malformed and was repaired
	// before being judged.
	NoticeCallRepaired NoticeKind = "call_repaired"
	// NoticeTruncated: the response hit the length limit; the model is
	// asked to continue where it stopped.
	NoticeTruncated NoticeKind = "truncated"
	// NoticeToolCallingFallback: the backend refused native tool
	// definitions; the run switched to tool calls written in text.
	NoticeToolCallingFallback NoticeKind = "tool_calling_fallback"
	// NoticeProjectContext: project files (AGENTS.md, README, manifests)
	// could not be read; the run goes on without them.
	NoticeProjectContext NoticeKind = "project_context"
	// NoticeCompactionSkipped: the conversation is over the compaction
	// threshold but holds nothing old enough to summarise.
	NoticeCompactionSkipped NoticeKind = "compaction_skipped"
	// NoticeContextOverflow: the task and the latest turn alone nearly
	// fill the model's context, even after compaction.
	NoticeContextOverflow NoticeKind = "context_overflow"
)

// StopReason says why a run ended.
type StopReason string

const (
	StopCompleted       StopReason = "completed"        // [TASK_COMPLETE] or a natural stop
	StopMaxIterations   StopReason = "max_iterations"   // the iteration limit was reached
	StopRepeatedFailure StopReason = "repeated_failure" // the same failing call kept coming
	StopCanceled        StopReason = "canceled"         // ctx was cancelled
	StopError           StopReason = "error"            // the model or the sink failed
)

// RunFinished closes a run.
type RunFinished struct {
	StopReason   StopReason `json:"stop_reason"`
	Iterations   int        `json:"iterations"`
	Usage        llm.Usage  `json:"usage"`
	CheckpointID string     `json:"checkpoint_id,omitempty"`
	Error        string     `json:"error,omitempty"`
}

func (RunStarted) Type() string            { return "run_started" }
func (BranchCreated) Type() string         { return "branch_created" }
func (ThinkingDelta) Type() string         { return "thinking_delta" }
func (ThinkingCollapsed) Type() string     { return "thinking_collapsed" }
func (TextDelta) Type() string             { return "text_delta" }
func (FileWriting) Type() string           { return "file_writing" }
func (ToolCallStarted) Type() string       { return "tool_call_started" }
func (ProgressGroupStarted) Type() string  { return "progress_group_started" }
func (ProgressGroupFinished) Type() string { return "progress_group_finished" }
func (ToolAction) Type() string            { return "tool_action" }
func (ApprovalRequested) Type() string     { return "approval_requested" }
func (ApprovalResolved) Type() string      { return "approval_resolved" }
func (FilesChanged) Type() string          { return "files_changed" }
func (FinalMessage) Type() string          { return "final_message" }
func (Notice) Type() string                { return "notice" }
func (RunFinished) Type() string           { return "run_finished" }
