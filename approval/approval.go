package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tetherdev/tether/safety"
)

// Kind says what a request asks permission for.
type Kind int

const (
	KindOther    Kind = iota // anything that is neither a command nor a file edit
	KindCommand              // run a shell command; Request.Command holds its exact bytes
	KindFileEdit             // create, modify or apply a staged change to a file; Request.Path names it
)

var kindNames = [...]string{"other", "command", "file_edit"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// MarshalText encodes k as its name ("command", "file_edit", "other").
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText accepts the names String returns.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("approval: unknown kind %q (want command, file_edit or other)", b)
}

// Request is one action waiting for a verdict.
//
// Command and Path hold the exact bytes that will run or be written: they are
// never normalised, trimmed or escaped. Show a person the Display form instead,
// which escapes every character that could hide what the bytes really are.
type Request struct {
	ID       string `json:"id"`                  // unique among pending requests; Manager and Gate assign one when empty
	Kind     Kind   `json:"kind"`                // what is being asked for
	ToolName string `json:"tool_name,omitempty"` // the tool that wants to act, e.g. "run_terminal_command"
	CallID   string `json:"call_id,omitempty"`   // the model's tool-call id, for correlating UI events

	Command string `json:"command,omitempty"` // KindCommand: the exact command line that will run
	Path    string `json:"path,omitempty"`    // KindFileEdit: the resolved path that will be written
	Token   string `json:"token,omitempty"`   // KindFileEdit: set when applying a staged change (see Stager)
	Summary string `json:"summary,omitempty"` // KindOther: what the action does, in words

	// Decision is what the safety layer said before any policy or human:
	// Allow runs without asking, Confirm asks, Deny never runs. Copy it from
	// the safety check (CommandVerdict, PathCheck); note that the zero value
	// is safety.Allow, so a Request built by hand without it is not asked
	// about (unless it is critical).
	Decision safety.Decision `json:"decision"`
	Severity safety.Severity `json:"severity"`
	Reasons  []string        `json:"reasons,omitempty"` // why the safety layer decided as it did

	Diff    string `json:"diff,omitempty"` // KindFileEdit: unified diff preview of the change
	Added   int    `json:"added,omitempty"`
	Removed int    `json:"removed,omitempty"`
}

// Subject returns the exact bytes the request is about: the command, the path
// or the summary, depending on Kind.
func (r Request) Subject() string {
	switch r.Kind {
	case KindCommand:
		return r.Command
	case KindFileEdit:
		return r.Path
	default:
		return r.Summary
	}
}

// Rule returns the session rule that "allow for this session" on r grants.
// The rule matches exactly this kind, tool and subject and nothing else: a
// grant for `npm test` does not cover `npm test; rm -rf x` or `npm test `.
func (r Request) Rule() Rule {
	return Rule{Kind: r.Kind, ToolName: r.ToolName, Subject: r.Subject()}
}

// clone returns a deep copy, so that nobody holding the original (or a copy
// handed to an Approver) can change what was approved.
func (r Request) clone() Request {
	r.Reasons = slices.Clone(r.Reasons)
	return r
}

// validate reports what is missing from r, in words a caller can act on.
func (r Request) validate() error {
	switch r.Kind {
	case KindCommand:
		if r.Command == "" {
			return fmt.Errorf("%w: command request has an empty Command", ErrInvalidRequest)
		}
	case KindFileEdit:
		if r.Path == "" {
			return fmt.Errorf("%w: file edit request has an empty Path", ErrInvalidRequest)
		}
	case KindOther:
		if r.Summary == "" {
			return fmt.Errorf("%w: request of kind other needs a Summary saying what it does", ErrInvalidRequest)
		}
	default:
		return fmt.Errorf("%w: unknown kind %d", ErrInvalidRequest, int(r.Kind))
	}
	if r.Decision < 0 || r.Decision > safety.Deny { // 0 is unset: the Gate asks
		return fmt.Errorf("%w: unknown decision %d", ErrInvalidRequest, int(r.Decision))
	}
	if r.Severity < safety.SeverityNone || r.Severity > safety.SeverityCritical {
		return fmt.Errorf("%w: unknown severity %d", ErrInvalidRequest, int(r.Severity))
	}
	return nil
}

// Rule is the scope of a session grant. Matching is exact byte equality on
// every field; there are no prefixes, globs or normalisation, so what the user
// saw is exactly what the grant covers.
type Rule struct {
	Kind     Kind   `json:"kind"`
	ToolName string `json:"tool_name,omitempty"`
	Subject  string `json:"subject"`
}

// String is the rule as a person should see it, with hidden characters escaped.
func (r Rule) String() string {
	tool := r.ToolName
	if tool == "" {
		tool = "any tool"
	}
	return fmt.Sprintf("%s %s: %s", Escape(tool), r.Kind, quoteDisplay(r.Subject))
}

// Choice is the answer to a request.
type Choice int

const (
	Deny         Choice = iota // do not run; the zero Response is a deny
	AllowOnce                  // run this request only
	AllowSession               // run it and every later request matching Response.Rule in this session
)

var choiceNames = [...]string{"deny", "allow_once", "allow_session"}

func (c Choice) String() string {
	if c < 0 || int(c) >= len(choiceNames) {
		return "Choice(" + strconv.Itoa(int(c)) + ")"
	}
	return choiceNames[c]
}

// MarshalText encodes c as its name.
func (c Choice) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText accepts the names String returns.
func (c *Choice) UnmarshalText(b []byte) error {
	for i, n := range choiceNames {
		if n == string(b) {
			*c = Choice(i)
			return nil
		}
	}
	return fmt.Errorf("approval: unknown choice %q (want deny, allow_once or allow_session)", b)
}

// Response is an approver's answer. Its zero value denies.
type Response struct {
	Choice Choice `json:"choice"`
	// Rule is the grant an AllowSession answer creates. Leave it zero to grant
	// exactly Request.Rule(); a non-zero Rule must equal it, because a grant
	// may never cover more than what was shown.
	Rule Rule `json:"rule,omitzero"`
	// Message is passed to the model with a denial ("use the test script
	// instead"). It is model-facing text; it is not logged as a reason.
	Message string `json:"message,omitempty"`
	// Reason says why, for the audit log ("user denied", "timed out after 5m").
	Reason string `json:"reason,omitempty"`
}

// Allowed reports whether the response lets the action run.
func (r Response) Allowed() bool { return r.Choice == AllowOnce || r.Choice == AllowSession }

// Approver answers requests, usually by asking a person.
//
// Approve blocks until it has an answer or ctx is done. When it returns an
// error the action does not run, whatever the response says.
type Approver interface {
	Approve(ctx context.Context, req Request) (Response, error)
}

// Func adapts an ordinary function to the Approver interface.
type Func func(ctx context.Context, req Request) (Response, error)

// Approve calls f(ctx, req).
func (f Func) Approve(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// Sentinel errors; test with errors.Is.
var (
	ErrDenied          = errors.New("approval: denied")
	ErrInvalidRequest  = errors.New("approval: invalid request")
	ErrTimeout         = errors.New("approval: no answer before the timeout")
	ErrUnknownRequest  = errors.New("approval: no such request")
	ErrStale           = errors.New("approval: request already resolved")
	ErrDuplicateID     = errors.New("approval: a request with this id is already pending")
	ErrRuleMismatch    = errors.New("approval: session rule differs from the rule shown")
	ErrInvalidResponse = errors.New("approval: invalid response")
)

// DeniedError is returned by Gate.Authorize when an action may not run.
// errors.Is(err, ErrDenied) is true; when the denial came from a timeout,
// a cancelled context or a failing approver, errors.Is also matches that cause.
type DeniedError struct {
	Request Request   // the request as it was judged
	By      Authority // who decided
	Reason  string    // why, for the audit log
	Message string    // optional text for the model from the person who denied
	Cause   error     // underlying error, if any
}

func (e *DeniedError) Error() string {
	s := fmt.Sprintf("approval: %s %s denied by %s: %s", e.Request.Kind, quoteDisplay(e.Request.Subject()), e.By, e.Reason)
	if e.Message != "" {
		s += " (" + e.Message + ")"
	}
	return s
}

// Unwrap lets errors.Is match both ErrDenied and the cause.
func (e *DeniedError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrDenied}
	}
	return []error{ErrDenied, e.Cause}
}

// ForModel is the text to send back to the model as the tool result.
func (e *DeniedError) ForModel() string {
	s := fmt.Sprintf("The %s was not run: %s.", describeKind(e.Request.Kind), e.Reason)
	if e.Message != "" {
		s += " The user says: " + e.Message
	}
	return s
}

func describeKind(k Kind) string {
	switch k {
	case KindCommand:
		return "command"
	case KindFileEdit:
		return "file change"
	default:
		return "action"
	}
}
