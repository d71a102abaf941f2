package scripted

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tetherdev/tether/llm"
)

// Script is a scripted model session: optional capabilities and the
// responses the model gives, in order. Its file form is JSON lines (see
// the package doc):
//
//	{"capabilities":{"tools":true,"thinking":true}}
//	{"thinking":"The user wants a file.","tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"hi"}}]}
//	{"content":"Done. [TASK_COMPLETE]"}
type Script struct {
	// Capabilities is what the model reports; nil means the default (see
	// Model.Capabilities).
	Capabilities *llm.Capabilities
	Turns        []Turn
}

// Turn is one scripted model response. Every field is optional.
type Turn struct {
	Thinking  string     `json:"thinking,omitempty"`
	Content   string     `json:"content,omitempty"`
	ToolCalls []CallSpec `json:"tool_calls,omitempty"`
}

// CallSpec is a tool call in a script. Arguments must be a JSON object;
// absent means {}.
type CallSpec struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ScriptError reports a bad line in a script file.
type ScriptError struct {
	File string // "" when read from a reader
	Line int
	Err  error
}

func (e *ScriptError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.File != "" {
		where = e.File + ":" + fmt.Sprint(e.Line)
	}
	return fmt.Sprintf("scripted: script %s: %v", where, e.Err)
}

func (e *ScriptError) Unwrap() error { return e.Err }

// ParseScript reads a script in the JSON-lines format. Blank lines are
// skipped. Unknown fields are errors, so a typo such as "tool_call" is
// caught instead of silently producing an empty response.
func ParseScript(r io.Reader) (Script, error) {
	var s Script
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	line, seen := 0, 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		seen++
		if seen == 1 && isCapabilitiesLine(b) {
			var head struct {
				Capabilities *llm.Capabilities `json:"capabilities"`
			}
			if err := strictUnmarshal(b, &head); err != nil {
				return s, &ScriptError{Line: line, Err: err}
			}
			if head.Capabilities == nil {
				return s, &ScriptError{Line: line, Err: errors.New(`"capabilities" must be an object such as {"tools":true,"thinking":false}`)}
			}
			s.Capabilities = head.Capabilities
			continue
		}
		if isCapabilitiesLine(b) {
			return s, &ScriptError{Line: line, Err: errors.New(`a "capabilities" line is only allowed as the first line`)}
		}
		var t Turn
		if err := strictUnmarshal(b, &t); err != nil {
			return s, &ScriptError{Line: line, Err: fmt.Errorf("%w (want {\"thinking\":…,\"content\":…,\"tool_calls\":[{\"name\":…,\"arguments\":{…}}]})", err)}
		}
		for i, c := range t.ToolCalls {
			if c.Name == "" {
				return s, &ScriptError{Line: line, Err: fmt.Errorf("tool_calls[%d]: missing \"name\"", i)}
			}
			args := bytes.TrimSpace(c.Arguments)
			if len(args) == 0 || bytes.Equal(args, []byte("null")) {
				t.ToolCalls[i].Arguments = json.RawMessage(`{}`)
			} else if args[0] != '{' {
				return s, &ScriptError{Line: line, Err: fmt.Errorf("tool_calls[%d] (%s): \"arguments\" must be a JSON object, got %s", i, c.Name, llm.Excerpt(args))}
			}
		}
		s.Turns = append(s.Turns, t)
	}
	if err := sc.Err(); err != nil {
		return s, &ScriptError{Line: line + 1, Err: err}
	}
	return s, nil
}

// ReadScriptFile reads a script file; errors name the file and line.
func ReadScriptFile(path string) (Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return Script{}, fmt.Errorf("scripted: script: %w", err)
	}
	defer f.Close()
	s, err := ParseScript(f)
	var se *ScriptError
	if errors.As(err, &se) {
		se.File = path
	}
	return s, err
}

// WriteTo writes s in the JSON-lines format; ParseScript reads it back.
func (s Script) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	if s.Capabilities != nil {
		if err := enc.Encode(map[string]any{"capabilities": s.Capabilities}); err != nil {
			return cw.n, err
		}
	}
	for _, t := range s.Turns {
		if err := enc.Encode(t); err != nil {
			return cw.n, err
		}
	}
	return cw.n, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func isCapabilitiesLine(b []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) != nil {
		return false
	}
	_, ok := probe["capabilities"]
	return ok
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}
