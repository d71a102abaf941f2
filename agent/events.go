package agent

import (
	"io"

	"github.com/tetherdev/tether/agent/event"
)

// The event types live in package event, which a UI imports without the
// loop. These aliases keep the agent's own code and existing hosts
// compiling unchanged; new code should name package event directly.

type (
	Event                 = event.Event
	Sink                  = event.Sink
	SinkFunc              = event.SinkFunc
	RunStarted            = event.RunStarted
	BranchCreated         = event.BranchCreated
	ProjectContextLoaded  = event.ProjectContextLoaded
	ProjectFile           = event.ProjectFile
	ThinkingDelta         = event.ThinkingDelta
	ThinkingCollapsed     = event.ThinkingCollapsed
	TextDelta             = event.TextDelta
	FileWriting           = event.FileWriting
	ToolCallStarted       = event.ToolCallStarted
	ProgressGroupStarted  = event.ProgressGroupStarted
	ProgressGroupFinished = event.ProgressGroupFinished
	ActionStatus          = event.ActionStatus
	ToolAction            = event.ToolAction
	ToolProgress          = event.ToolProgress
	ApprovalRequested     = event.ApprovalRequested
	ApprovalResolved      = event.ApprovalResolved
	FileChange            = event.FileChange
	FilesChanged          = event.FilesChanged
	FinalMessage          = event.FinalMessage
	Notice                = event.Notice
	NoticeKind            = event.NoticeKind
	TodoStatus            = event.TodoStatus
	TodoItem              = event.TodoItem
	TodosUpdated          = event.TodosUpdated
	ContextCompacted      = event.ContextCompacted
	SubagentEvent         = event.SubagentEvent
	RunFinished           = event.RunFinished
	StopReason            = event.StopReason
)

// Tool action states; see [event.ActionStatus].
const (
	StatusRunning = event.StatusRunning
	StatusPending = event.StatusPending
	StatusSuccess = event.StatusSuccess
	StatusError   = event.StatusError
	StatusDenied  = event.StatusDenied
	StatusSkipped = event.StatusSkipped
)

// Why a run ended; see [event.StopReason].
const (
	StopCompleted       = event.StopCompleted
	StopMaxIterations   = event.StopMaxIterations
	StopRepeatedFailure = event.StopRepeatedFailure
	StopCanceled        = event.StopCanceled
	StopError           = event.StopError
)

// Notice kinds; see [event.NoticeKind].
const (
	NoticeWriteReminder       = event.NoticeWriteReminder
	NoticePivotGuidance       = event.NoticePivotGuidance
	NoticeRepeatedFailure     = event.NoticeRepeatedFailure
	NoticeParseError          = event.NoticeParseError
	NoticeCallRepaired        = event.NoticeCallRepaired
	NoticeTruncated           = event.NoticeTruncated
	NoticeToolCallingFallback = event.NoticeToolCallingFallback
	NoticeProjectContext      = event.NoticeProjectContext
	NoticeCompactionSkipped   = event.NoticeCompactionSkipped
	NoticeContextOverflow     = event.NoticeContextOverflow
)

// Plan item states; see [event.TodoStatus].
const (
	TodoPending    = event.TodoPending
	TodoInProgress = event.TodoInProgress
	TodoDone       = event.TodoDone
)

// MarshalEvent is [event.Marshal].
func MarshalEvent(e Event) ([]byte, error) { return event.Marshal(e) }

// JSONLines is [event.JSONLines].
func JSONLines(w io.Writer) Sink { return event.JSONLines(w) }
