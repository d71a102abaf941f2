package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrUnknownEvent is returned by [UnmarshalEvent] for a "type" it does
// not know.
var ErrUnknownEvent = errors.New("agent: unknown event type")

// eventTypes maps every Type() to a constructor, for UnmarshalEvent.
var eventTypes = map[string]func() Event{
	"run_started":             func() Event { return new(RunStarted) },
	"branch_created":          func() Event { return new(BranchCreated) },
	"thinking_delta":          func() Event { return new(ThinkingDelta) },
	"thinking_collapsed":      func() Event { return new(ThinkingCollapsed) },
	"text_delta":              func() Event { return new(TextDelta) },
	"file_writing":            func() Event { return new(FileWriting) },
	"tool_call_started":       func() Event { return new(ToolCallStarted) },
	"progress_group_started":  func() Event { return new(ProgressGroupStarted) },
	"progress_group_finished": func() Event { return new(ProgressGroupFinished) },
	"tool_action":             func() Event { return new(ToolAction) },
	"approval_requested":      func() Event { return new(ApprovalRequested) },
	"approval_resolved":       func() Event { return new(ApprovalResolved) },
	"files_changed":           func() Event { return new(FilesChanged) },
	"final_message":           func() Event { return new(FinalMessage) },
	"notice":                  func() Event { return new(Notice) },
	"run_finished":            func() Event { return new(RunFinished) },
}

// MarshalEvent encodes e as one JSON object whose first field is
// "type" (e.Type()), followed by the event's own snake_case fields:
//
//	{"type":"text_delta","text":"Hello"}
func MarshalEvent(e Event) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("agent: encoding %s event: %w", e.Type(), err)
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("agent: %s event does not encode as a JSON object", e.Type())
	}
	typ, _ := json.Marshal(e.Type())
	out := make([]byte, 0, len(body)+len(typ)+10)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

// UnmarshalEvent decodes what MarshalEvent wrote. The result is a pointer
// to the event struct (*TextDelta, *ToolAction, …).
func UnmarshalEvent(data []byte) (Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("agent: decoding event: %w", err)
	}
	mk, ok := eventTypes[head.Type]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEvent, head.Type)
	}
	e := mk()
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(e); err != nil {
		return nil, fmt.Errorf("agent: decoding %s event: %w", head.Type, err)
	}
	return e, nil
}

// JSONLines returns a Sink that writes each event as one line of JSON to
// w, as the headless example does. Writes are serialised.
func JSONLines(w io.Writer) Sink {
	var mu sync.Mutex
	return SinkFunc(func(_ context.Context, e Event) error {
		b, err := MarshalEvent(e)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		_, err = w.Write(append(b, '\n'))
		return err
	})
}
