package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ToolCallDelta is one streamed fragment of a tool call, as OpenAI-style
// servers send them: the first fragment of a call usually carries its ID and
// Name, later ones carry pieces of the Arguments JSON text.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// ToolCallAssembler joins streamed [ToolCallDelta]s into complete calls.
// The zero value is ready to use; it is not safe for concurrent use.
//
// Servers disagree about Index. OpenAI gives each call of a turn its own
// index; some servers reuse one index for several calls, or label every
// call 0. The assembler therefore keys on more than the index: a fragment
// starts a new call when
//
//   - no call is open at its index, or
//   - both it and the open call have IDs, and they differ, or
//   - without two IDs to compare, it carries a Name, the open call already
//     has a name, and either the name differs or the open call's arguments
//     are already a complete JSON value.
//
// Calls are never de-duplicated: a model that asks for the same call twice
// gets it twice, because dropping one would silently skip work the model
// expects done. Calls come out in the order they started, and
// their Index is that order (0, 1, 2…), whatever the server said.
type ToolCallAssembler struct {
	calls []*pendingCall
	open  map[int]*pendingCall // server index → the call currently open at it
}

type pendingCall struct {
	id, name string
	args     strings.Builder
}

// Add feeds one fragment.
func (a *ToolCallAssembler) Add(d ToolCallDelta) {
	if a.open == nil {
		a.open = make(map[int]*pendingCall)
	}
	c := a.open[d.Index]
	if c == nil || startsNewCall(c, d) {
		c = &pendingCall{}
		a.calls = append(a.calls, c)
		a.open[d.Index] = c
	}
	if c.id == "" {
		c.id = d.ID
	}
	if c.name == "" {
		c.name = d.Name
	}
	c.args.WriteString(d.Arguments)
}

func startsNewCall(c *pendingCall, d ToolCallDelta) bool {
	if d.ID != "" && c.id != "" {
		return d.ID != c.id
	}
	// No ids to compare (or only the fragment has one): decide by name.
	if d.Name == "" || c.name == "" {
		return false
	}
	// Some servers repeat the name on every fragment of one call; a repeat
	// only means "new call" once the open call's arguments are complete.
	return d.Name != c.name || json.Valid([]byte(c.args.String()))
}

// Len reports how many calls have been started.
func (a *ToolCallAssembler) Len() int { return len(a.calls) }

// Calls returns the assembled calls. Empty arguments become {}. A call
// whose arguments are not a JSON object is still returned, with its raw
// text as a JSON string in Arguments, and reported in the error so that the
// agent can tell the model what went wrong instead of silently dropping the
// call.
func (a *ToolCallAssembler) Calls() ([]ToolCall, error) {
	if len(a.calls) == 0 {
		return nil, nil
	}
	out := make([]ToolCall, 0, len(a.calls))
	var bad []string
	for i, c := range a.calls {
		tc := ToolCall{ID: c.id, Index: i, Name: c.name}
		raw := bytes.TrimSpace([]byte(c.args.String()))
		switch {
		case len(raw) == 0:
			tc.Arguments = json.RawMessage(`{}`)
		case json.Valid(raw) && raw[0] == '{':
			tc.Arguments = json.RawMessage(raw)
		default:
			quoted, _ := json.Marshal(string(raw))
			tc.Arguments = quoted
			bad = append(bad, fmt.Sprintf("call %d (%s): arguments are not a JSON object: %.80q", i, c.name, raw))
		}
		if tc.Name == "" {
			bad = append(bad, fmt.Sprintf("call %d: no tool name", i))
		}
		out = append(out, tc)
	}
	if bad != nil {
		return out, &MalformedToolCallError{Problems: bad, Calls: out}
	}
	return out, nil
}

// MalformedToolCallError reports streamed tool calls that could not be
// assembled into a name and a JSON object. Calls holds every call of the
// turn, the bad ones with their raw text as a JSON string in Arguments;
// tell the model what was wrong so it can try again.
type MalformedToolCallError struct {
	Problems []string
	Calls    []ToolCall
}

func (e *MalformedToolCallError) Error() string {
	return "malformed tool call from the model: " + strings.Join(e.Problems, "; ")
}
