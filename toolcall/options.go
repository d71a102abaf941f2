package toolcall

import "fmt"

// Option configures a Stream (and ParseWith).
type Option func(*config)

type config struct {
	formats  Format
	allow    map[string]bool // nil: any name
	thinking bool            // the message starts inside a reasoning block
}

func newConfig(opts []Option) config {
	c := config{formats: AllFormats}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTools restricts calls to the named tools.
//
// With an allow-list, a block recognised by its markup (<tool_call>,
// [TOOL_CALLS], …) naming another tool is reported as a Failure with
// ErrUnknownTool, an envelope action naming another tool is dropped with a
// Warning, and bare JSON naming another tool is plain prose — never a call.
// Bare JSON that carries its arguments at the top level ({"name":"read_file",
// "path":"a"}) is accepted only when its name is on the list, because without
// a list any object with a "name" key would look like a call.
func WithTools(names ...string) Option {
	return func(c *config) {
		c.allow = make(map[string]bool, len(names))
		for _, n := range names {
			c.allow[n] = true
		}
	}
}

// WithFormats enables only the given syntaxes (default AllFormats).
func WithFormats(f Format) Option {
	return func(c *config) { c.formats = f }
}

// StartInThinking declares that the message begins inside a reasoning
// block whose <think> tag was part of the prompt (Qwen3, DeepSeek-R1
// templates): everything up to the first </think> is thinking.
func StartInThinking() Option {
	return func(c *config) { c.thinking = true }
}

func (c *config) allowed(name string) bool {
	return c.allow == nil || c.allow[name]
}

func (c *config) unknownToolReason(name string) string {
	return fmt.Sprintf("unknown tool %q: use one of the tools you were given", name)
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventText: display-safe prose in Text. Concatenated, the Text of
	// all EventText events equals Result.Text.
	EventText EventKind = iota
	// EventThinking: reasoning in Text; concatenated, equals Result.Thinking.
	EventThinking
	// EventCallStart: markup that opens a call was recognised. Name is
	// set when the syntax names the tool before its arguments.
	EventCallStart
	// EventCallName: the tool name became known.
	EventCallName
	// EventCallPath: the path argument of the call is complete, so a UI
	// can show "Writing main.go…" before the content has streamed.
	EventCallPath
	// EventCall: a call is complete; Call holds it.
	EventCall
	// EventFailure: a call block failed; Failure says why. Its text
	// follows as EventText.
	EventFailure
	// EventWarning: an envelope action was dropped; Warning says why.
	EventWarning
)

var eventKindNames = [...]string{"text", "thinking", "call_start", "call_name", "call_path", "call", "failure", "warning"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// MarshalText implements encoding.TextMarshaler.
func (k EventKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Event is one thing a Stream reports while text arrives.
type Event struct {
	Kind EventKind `json:"type"`
	Text string    `json:"text,omitempty"`
	// Block numbers the call blocks of the message from 0, so the start,
	// name, path and end of one block can be matched up.
	Block  int    `json:"block"`
	Format Format `json:"format,omitempty"`
	Name   string `json:"name,omitempty"`
	Path   string `json:"path,omitempty"`
	// Index is the call's index in Result.Calls (EventCall).
	Index   int      `json:"index"`
	Call    *Call    `json:"call,omitempty"`
	Failure *Failure `json:"failure,omitempty"`
	Warning *Warning `json:"warning,omitempty"`
}

// Type returns the event's kind as a snake_case string.
func (e Event) Type() string { return e.Kind.String() }
