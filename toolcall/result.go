package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Result is everything found in one model message.
//
// Invariants (checked by the fuzz targets):
//   - Segments are contiguous, in order, and cover the whole input.
//   - Text is the concatenation of the Text of the SegmentText and
//     SegmentCall segments: all prose outside calls is kept, in order.
//   - Thinking is the concatenation of the Text of SegmentThinking segments.
type Result struct {
	// Calls in source order.
	Calls []Call `json:"calls"`
	// Text is the prose with call markup removed. The text of a block
	// that failed to parse stays here verbatim, so nothing is lost; a
	// yips envelope contributes its assistant_text.
	Text string `json:"text"`
	// Thinking is the content of <think>…</think> blocks, without the
	// tags. Reasoning is returned separately and never appears in Text.
	Thinking string `json:"thinking,omitempty"`
	// Segments split the input into text, call and thinking spans, for
	// UIs that render calls in place.
	Segments []Segment `json:"segments"`
	// Failures are call blocks that could not be used, one per block,
	// with the reason and the raw text, so an agent can tell the model
	// what to fix. A failure never affects the calls around it.
	Failures []Failure `json:"failures,omitempty"`
	// Warnings report calls that were dropped by envelope rules
	// (duplicate ids, names outside the allow-list, malformed actions).
	Warnings []Warning `json:"warnings,omitempty"`
}

// Call is one tool call.
type Call struct {
	Name string `json:"name"`
	// Arguments is always a JSON object ({} when the model gave none).
	// It may share memory with the parser's buffer: do not modify it.
	Arguments json.RawMessage `json:"arguments"`
	// ID is the call id when the model wrote one (Mistral, yips).
	ID string `json:"id,omitempty"`
	// Kind is "tool", or "skill" / "subagent" for yips actions.
	Kind string `json:"kind"`
	// Format names the syntax the call was written in.
	Format Format `json:"format"`
	// Repaired is set when the JSON had to be fixed: output truncated at
	// a value boundary and closed, or raw control characters escaped.
	Repaired bool `json:"repaired,omitempty"`
	// Start and End delimit the call's markup in the input (for a block
	// holding several calls, the whole block).
	Start int `json:"start"`
	End   int `json:"end"`
}

// SegmentKind says what a Segment holds.
type SegmentKind uint8

const (
	SegmentText     SegmentKind = iota // prose, shown to the user
	SegmentCall                        // call markup; Calls indexes Result.Calls
	SegmentThinking                    // a reasoning block
	// SegmentMarkup is a control token that is never prose and never a
	// call (an end-of-turn token such as <|eot_id|>, a stray </think>);
	// it contributes nothing to Text or Thinking.
	SegmentMarkup
)

var segmentKindNames = [...]string{"text", "call", "thinking", "markup"}

func (k SegmentKind) String() string {
	if int(k) < len(segmentKindNames) {
		return segmentKindNames[k]
	}
	return fmt.Sprintf("SegmentKind(%d)", k)
}

// MarshalText implements encoding.TextMarshaler.
func (k SegmentKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Segment is one span of the input.
type Segment struct {
	Kind SegmentKind `json:"kind"`
	// Start and End are byte offsets into the input.
	Start int `json:"start"`
	End   int `json:"end"`
	// Text is what the segment contributes to Result.Text (text and call
	// segments) or to Result.Thinking (thinking segments).
	Text string `json:"text,omitempty"`
	// Calls are indexes into Result.Calls (call segments only).
	Calls []int `json:"calls,omitempty"`
}

// Sentinel errors wrapped by Failure.Err; test them with errors.Is.
var (
	ErrInvalidJSON       = errors.New("invalid JSON")
	ErrTruncated         = errors.New("output ended inside a call")
	ErrNotACall          = errors.New("not a tool call")
	ErrBadArguments      = errors.New("arguments are not a JSON object")
	ErrUnknownTool       = errors.New("unknown tool")
	ErrMultipleEnvelopes = errors.New("more than one envelope in a message")
	// ErrMention: a complete call block that the text shows rather than
	// makes (an example, a quotation, code, a hedged or refused call). Its
	// text stays prose; an agent should tell the model it was not run.
	ErrMention = errors.New("a call shown, not made")
)

// Failure is a call block that was recognised by its markup but could not
// be turned into calls. Its raw text stays in Result.Text.
type Failure struct {
	Format Format `json:"format"`
	// Reason says what was wrong, in words fit to show a model.
	Reason string `json:"reason"`
	// Err wraps one of the sentinel errors above.
	Err error `json:"-"`
	// Start and End delimit the block in the input; Raw is its text.
	Start int    `json:"start"`
	End   int    `json:"end"`
	Raw   string `json:"raw"`
}

func (f Failure) Error() string {
	return fmt.Sprintf("toolcall: %s block at byte %d: %s", f.Format, f.Start, f.Reason)
}

// Unwrap returns the sentinel error.
func (f Failure) Unwrap() error { return f.Err }

// Warning reports a call dropped by a rule; the rest of its block was used.
type Warning struct {
	Reason string `json:"reason"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
}

// Format identifies a call syntax. Formats combine as a bit set in
// WithFormats.
type Format uint16

const (
	// FormatTag: <tool_call>, <function_call>, <tool>, <tools>,
	// <response>, <json> wrappers around JSON (Hermes, Qwen, and the
	// variants small models emit).
	FormatTag Format = 1 << iota
	// FormatFunctionTag: <function=NAME>{args}</function> (Llama 3.1,
	// Functionary v3.1), also inside <tool_call>.
	FormatFunctionTag
	// FormatMistral: [TOOL_CALLS][{…}] and [TOOL_CALLS]name[ARGS]{…}.
	FormatMistral
	// FormatPythonTag: Llama 3.x <|python_tag|>{"name", "parameters"},
	// name.call(key=value) and plain code for an allow-listed code tool.
	FormatPythonTag
	// FormatFunctionary: >>>name followed by a JSON object on the next
	// line, and Functionary v2's <|recipient|>name … <|content|>{…}.
	FormatFunctionary
	// FormatJSON: a bare or ```json-fenced call object (or array of calls)
	// that is the whole message or ends it.
	FormatJSON
	// FormatYips: the ```yips-agent and legacy ```yips-tools envelopes.
	FormatYips
	// FormatPythonic: a bare [name(key=value), …] list of calls that
	// ends the message, accepted only with WithTools: without known names
	// such a list is as likely to be code as a call.
	FormatPythonic

	// AllFormats enables every syntax; it is the default.
	AllFormats = FormatTag | FormatFunctionTag | FormatMistral | FormatPythonTag |
		FormatFunctionary | FormatJSON | FormatYips | FormatPythonic
)

var formatNames = []struct {
	f    Format
	name string
}{
	{FormatTag, "tag"}, {FormatFunctionTag, "function_tag"}, {FormatMistral, "mistral"},
	{FormatPythonTag, "python_tag"}, {FormatFunctionary, "functionary"},
	{FormatJSON, "json"}, {FormatYips, "yips"}, {FormatPythonic, "pythonic"},
}

func (f Format) String() string {
	s := ""
	for _, n := range formatNames {
		if f&n.f != 0 {
			if s != "" {
				s += "|"
			}
			s += n.name
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// MarshalText implements encoding.TextMarshaler.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it accepts the
// names String returns, joined by "|".
func (f *Format) UnmarshalText(b []byte) error {
	*f = 0
	if string(b) == "none" || len(b) == 0 {
		return nil
	}
	for name := range strings.SplitSeq(string(b), "|") {
		found := false
		for _, n := range formatNames {
			if n.name == name {
				*f |= n.f
				found = true
			}
		}
		if !found {
			return fmt.Errorf("toolcall: unknown format %q", name)
		}
	}
	return nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *SegmentKind) UnmarshalText(b []byte) error {
	for i, n := range segmentKindNames {
		if n == string(b) {
			*k = SegmentKind(i)
			return nil
		}
	}
	return fmt.Errorf("toolcall: unknown segment kind %q", b)
}
