package toolcall

import (
	"encoding/json"
	"fmt"
)

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

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *EventKind) UnmarshalText(b []byte) error {
	for i, n := range eventKindNames {
		if n == string(b) {
			*k = EventKind(i)
			return nil
		}
	}
	return fmt.Errorf("toolcall: unknown event type %q", b)
}

// MarshalJSON writes the event with only the fields its kind uses, so a
// text event is {"type":"text","text":"…"}.
func (e Event) MarshalJSON() ([]byte, error) {
	type wire struct {
		Type    EventKind `json:"type"`
		Text    string    `json:"text,omitempty"`
		Block   *int      `json:"block,omitempty"`
		Format  Format    `json:"format,omitempty"`
		Name    string    `json:"name,omitempty"`
		Path    string    `json:"path,omitempty"`
		Index   *int      `json:"index,omitempty"`
		Call    *Call     `json:"call,omitempty"`
		Failure *Failure  `json:"failure,omitempty"`
		Warning *Warning  `json:"warning,omitempty"`
	}
	w := wire{Type: e.Kind, Text: e.Text, Format: e.Format, Name: e.Name, Path: e.Path, Call: e.Call, Failure: e.Failure, Warning: e.Warning}
	if e.Kind >= EventCallStart {
		w.Block = &e.Block
	}
	if e.Kind == EventCall {
		w.Index = &e.Index
	}
	return json.Marshal(w)
}
