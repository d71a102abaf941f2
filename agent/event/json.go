package event

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrUnknownType is returned by [Unmarshal] for a "type" it does not
// know.
var ErrUnknownType = errors.New("event: unknown event type")

// eventTypes maps every Type() to its decoder, for Unmarshal. It is
// never changed after package initialisation.
var eventTypes = map[string]func([]byte) (Event, error){
	"run_started":             decodeAs[RunStarted],
	"branch_created":          decodeAs[BranchCreated],
	"thinking_delta":          decodeAs[ThinkingDelta],
	"thinking_collapsed":      decodeAs[ThinkingCollapsed],
	"text_delta":              decodeAs[TextDelta],
	"file_writing":            decodeAs[FileWriting],
	"tool_call_started":       decodeAs[ToolCallStarted],
	"progress_group_started":  decodeAs[ProgressGroupStarted],
	"progress_group_finished": decodeAs[ProgressGroupFinished],
	"tool_action":             decodeAs[ToolAction],
	"tool_progress":           decodeAs[ToolProgress],
	"approval_requested":      decodeAs[ApprovalRequested],
	"approval_resolved":       decodeAs[ApprovalResolved],
	"files_changed":           decodeAs[FilesChanged],
	"final_message":           decodeAs[FinalMessage],
	"notice":                  decodeAs[Notice],
	"run_finished":            decodeAs[RunFinished],
	"project_context":         decodeAs[ProjectContextLoaded],
	"todos_updated":           decodeAs[TodosUpdated],
	"context_compacted":       decodeAs[ContextCompacted],
	"context_window":          decodeAs[ContextWindow],
	"subagent_event":          decodeAs[SubagentEvent],
}

// decodeAs decodes data into a T and returns it as a value, so decoded
// events match the same type switches as live ones.
func decodeAs[T Event](data []byte) (Event, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

// Marshal encodes e as one JSON object whose first field is
// "type" (e.Type()), followed by the event's own snake_case fields:
//
//	{"type":"text_delta","text":"Hello"}
func Marshal(e Event) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("event: encoding %s event: %w", e.Type(), err)
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("event: %s event does not encode as a JSON object", e.Type())
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

// Unmarshal decodes what Marshal wrote into the event's own
// type (TextDelta, ToolAction, …).
func Unmarshal(data []byte) (Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("event: decoding event: %w", err)
	}
	decode, ok := eventTypes[head.Type]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownType, head.Type)
	}
	e, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("event: decoding %s event: %w", head.Type, err)
	}
	return e, nil
}

// JSONLines returns a Sink that writes each event as one line of JSON to
// w, as the headless example does. Writes are serialised.
func JSONLines(w io.Writer) Sink {
	var mu sync.Mutex
	return SinkFunc(func(_ context.Context, e Event) error {
		b, err := Marshal(e)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		_, err = w.Write(append(b, '\n'))
		return err
	})
}
