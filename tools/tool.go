package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tetherdev/tether/llm"
)

// Tool is one action an agent can take. Describe is cheap and constant;
// Execute runs one call. Execute returns an error only for failures the
// model should see as a failed call (bad input, missing file, a command
// that could not start); the Registry turns such errors, panics and
// timeouts into a Result with IsError set, so a model always gets an answer.
type Tool interface {
	Describe() Spec
	Execute(ctx context.Context, call Call) (Result, error)
}

// Spec is what a Tool says about itself.
type Spec struct {
	// Name is what the model calls: lower snake_case, [a-z0-9_-], at most
	// 64 bytes (the limit OpenAI-compatible servers enforce).
	Name string
	// Description tells the model when to use the tool. First sentence
	// first: text-mode prompts may show only that.
	Description string
	// Parameters is a JSON Schema object for the arguments. Empty means
	// the tool takes no arguments.
	Parameters json.RawMessage
	// ReadOnly tools never change files or run commands; read-only agent
	// modes (explore, plan, review) offer only these, and the agent may
	// run them in parallel.
	ReadOnly bool
	// OpenWorld tools reach outside the workspace and the machine (the
	// web, a remote API): what they read is untrusted and where they go is
	// the model's choice, so approval policies may treat them apart.
	OpenWorld bool
	// Timeout bounds one call; zero means the Registry's default.
	Timeout time.Duration
	// ArgAliases maps a parameter name to other names models use for it
	// (for example "old_string" for "search"). Every tool also accepts the
	// path aliases in [PathAliases] for a "path" parameter.
	ArgAliases map[string][]string
	// Guidance are lines for an agent's system prompt, shown when the
	// tool is offered (see WithGuidance).
	Guidance []Guidance

	declare any                                // WithEffects's function until New checks its type
	titles  func(call Call, eff Effects) Title // WithTitle's function
}

// LLM converts s into the spec a natively tool-calling model receives.
func (s Spec) LLM() llm.ToolSpec {
	params := s.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: params}
}

// Call is one invocation. Arguments is a JSON object once the Registry
// has normalised it; tools called directly must accept what models send
// (New's tools normalise and validate on their own).
type Call struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// CallFrom converts a model's tool call.
func CallFrom(tc llm.ToolCall) Call {
	return Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
}

// Result is what a call produced: Text goes to the model; Meta is for
// hosts and UIs, which must not have to parse Text.
type Result struct {
	Text    string `json:"text"`
	IsError bool   `json:"is_error,omitempty"`
	Meta    Meta   `json:"meta,omitzero"`
	// Images are pictures the tool returned (a screenshot, a chart), for
	// models that see images; Text describes each in a line for those
	// that do not.
	Images []llm.Image `json:"images,omitempty"`
	// Metadata is structured content for the model beside Text, for
	// protocols that read fields rather than prose (a staged change's
	// "token" and "diffPreview"). The agent sends it after Text as one
	// JSON object and shows it to hosts on the final ToolAction.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Meta is structured information about a call's result. Every field is
// optional; tools fill what applies to them.
type Meta struct {
	// Tool is the canonical name the call resolved to (after aliases).
	Tool string `json:"tool,omitempty"`
	// Path is the workspace-relative, slash-separated path acted on.
	Path string `json:"path,omitempty"`
	// StartLine and EndLine are the 1-based inclusive lines shown or changed.
	StartLine int `json:"start_line,omitempty"`
	EndLine   int `json:"end_line,omitempty"`
	// TotalLines is the file's or output's full line count.
	TotalLines int `json:"total_lines,omitempty"`
	// Bytes is the file's or output's full size in bytes.
	Bytes int64 `json:"bytes,omitempty"`
	// Chunks are the line ranges read_file streamed, one UI action each.
	Chunks []LineRange `json:"chunks,omitempty"`
	// Added and Removed are diff stats of a file change (+N −N).
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	// Created is set when a write made a new file.
	Created bool `json:"created,omitempty"`
	// Truncated is set when Text omits part of the output; OmittedLines
	// and OmittedItems say exactly how much (lines of output; files,
	// matches or entries of a listing).
	Truncated    bool `json:"truncated,omitempty"`
	OmittedLines int  `json:"omitted_lines,omitempty"`
	OmittedItems int  `json:"omitted_items,omitempty"`
	// Summary is the tool's own one-line account of its result ("2
	// errors, 1 warning"), shown as the action's detail in place of one
	// built from the counts below.
	Summary string `json:"summary,omitempty"`
	// Matches and Files count search hits and the files holding them;
	// Entries counts a listing.
	Matches int `json:"matches,omitempty"`
	Files   int `json:"files,omitempty"`
	Entries int `json:"entries,omitempty"`
	// ExitCode is a command's exit status; nil when it did not run to exit.
	ExitCode *int `json:"exit_code,omitempty"`
	// TimedOut is set when a command or a call hit its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Cwd is the directory a command ran in, workspace-relative.
	Cwd string `json:"cwd,omitempty"`
	// Duration is how long the call took.
	Duration time.Duration `json:"duration,omitempty"`
}

// LineRange is a 1-based inclusive range of lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Func adapts a plain function to Tool, as http.HandlerFunc does for
// handlers. Run receives the call as the Registry normalised it.
type Func struct {
	Spec Spec
	Run  func(ctx context.Context, call Call) (Result, error)
	// Titles, when set, titles the tool's prepared calls (see Titler).
	Titles func(call Call, eff Effects) Title
}

// Describe returns f.Spec.
func (f Func) Describe() Spec { return f.Spec }

// Execute calls f.Run.
func (f Func) Execute(ctx context.Context, call Call) (Result, error) { return f.Run(ctx, call) }

// Text is a convenience for a successful text-only result.
func Text(s string) Result { return Result{Text: s} }
