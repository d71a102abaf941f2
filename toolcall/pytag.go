package toolcall

import (
	"bytes"
	"encoding/json"
)

// Python after <|python_tag|>. Llama 3.1 writes its built-in tools as
// name.call(key="value") and code for its interpreter as plain Python;
// Functionary v3.1 writes plain Python too (llama.cpp
// tests/test-chat.cpp). The code runs to <|eom_id|>, <|eot_id|> or the end
// of the message.
//
// A name.call(…) or name(…) with keyword arguments is a call of that
// tool. Plain code is a call of the code tool ("python", or
// "code_interpreter" when only that one is listed) only when an
// allow-list offers one and the tag starts a line: otherwise "Llama
// writes <|python_tag|> first" in prose would become code to run.
// Anything else is a Failure whose text
// stays prose.

var codeTools = []string{"python", "code_interpreter", "ipython"}

// pyWrapper is a special token that opens a pythonic list of calls, and
// the tokens that end it. The explicit token makes the list a call
// without an allow-list.
type pyWrapper struct {
	open string
	ends []string
	// lines: the calls may also be written one per line, without the
	// list's brackets and commas.
	lines bool
}

var pyWrappers = [...]pyWrapper{
	// Llama 4: <|python_start|>[f(k=v), …]<|python_end|> (vLLM
	// llama4_pythonic_tool_parser).
	{"<|python_start|>", []string{"<|python_end|>", "<|eom|>", "<|eot|>"}, false},
	// LFM2: <|tool_call_start|>[f(k=v), …]<|tool_call_end|> (llama.cpp
	// tests/test-chat.cpp, the model's chat template).
	{"<|tool_call_start|>", []string{"<|tool_call_end|>", "<|im_end|>"}, false},
	// Olmo 3: <function_calls>f(k=v)\ng()</function_calls>, one call per
	// line (vLLM olmo3_tool_parser). The tag is also the wrapper of
	// <invoke> items; this reading applies only when a call follows it.
	{"<function_calls>", []string{"</function_calls>"}, true},
}

func (s *Stream) pyTagStep() bool {
	k := &s.blk
	b := s.buf
	term, end := -1, -1
	for k.pyScan < len(b) {
		j := bytes.IndexByte(b[k.pyScan:], '<')
		if j < 0 {
			k.pyScan = len(b)
			break
		}
		at := k.pyScan + j
		partial := false
		ends := llamaEnds
		if k.py != nil {
			ends = k.py.ends
		}
		for _, e := range ends {
			f, p := hasPrefixOrPartial(b[at:], e)
			if f {
				term, end = at, at+len(e)
				break
			}
			partial = partial || p
		}
		if term >= 0 {
			break
		}
		if partial && !s.eof {
			k.pyScan = at
			s.pos = at
			return false
		}
		k.pyScan = at + 1
	}
	if term < 0 {
		if !s.eof {
			s.pos = len(b)
			return false
		}
		term, end = len(b), len(b)
	}
	s.pos = term
	code := bytes.TrimSpace(b[k.pyStart:term])
	calls, ok := parsePythonCalls(code, false)
	if !ok && k.py != nil {
		calls, ok = parsePythonCalls(code, true)
		if !ok && k.py.lines {
			calls, ok = pythonCallLines(code)
		}
		if !ok {
			s.failBlock(term, ErrInvalidJSON, "expected [name(key=value), …] after "+k.py.open)
			return true
		}
	}
	if !ok {
		name := s.codeTool()
		if name == "" || len(code) == 0 || !atLineStart(b, k.start) {
			s.failBlock(term, ErrInvalidJSON, "expected a JSON object or name.call(key=value) after "+pythonTag+"; write the call as JSON")
			return true
		}
		args, _ := json.Marshal(map[string]string{"code": string(code)})
		calls = []Call{{Name: name, Arguments: args, Kind: "tool"}}
	}
	for _, c := range calls {
		if !s.cfg.allowed(c.Name) {
			s.failBlock(term, ErrUnknownTool, s.cfg.unknownToolReason(c.Name))
			return true
		}
		c.Format = k.format
		k.calls = append(k.calls, c)
	}
	k.items++
	k.state = bItems
	s.endBlock(end)
	return true
}

// codeTool is the allow-listed tool that runs plain code, or "".
func (s *Stream) codeTool() string {
	for _, n := range codeTools {
		if s.cfg.allow[n] {
			return n
		}
	}
	return ""
}

// pythonCallLines reads one call per non-blank line; every line must be
// a call.
func pythonCallLines(code []byte) ([]Call, bool) {
	var calls []Call
	for line := range bytes.Lines(code) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		one, ok := parsePythonCalls(line, false)
		if !ok {
			return nil, false
		}
		calls = append(calls, one...)
	}
	return calls, len(calls) > 0
}

// pyCallAt reports whether b[j:] starts a call, NAME( with NAME a tool
// name; need when the buffer ends before that is decided.
func pyCallAt(b []byte, j int, eof bool) (ok, need bool) {
	i := j
	for i < len(b) && i-j < maxNameLen && isNameByte(b[i]) && b[i] != ':' {
		i++
	}
	if i == len(b) && i-j < maxNameLen {
		return false, !eof
	}
	return i > j && b[i] == '(' && validName(string(b[j:i])), false
}
