package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
	"unsafe"
)

// The one alias table. Models name the same two things many ways:
//
//	tool name:  name, tool_name, tool, function (a string)
//	arguments:  arguments, args, params, parameters,
//	            or the OpenAI shape {"type":"function","function":{"name","arguments"}},
//	            or, failing both, the remaining top-level keys.
//
// Arguments written as a JSON string holding an object are decoded once;
// string values inside the arguments stay strings even if they look like
// JSON.

// nameKeys and argsKeys list the aliases in order of preference.
var (
	nameKeys = [...]string{"name", "tool_name", "tool", "function"}
	argsKeys = [...]string{"arguments", "args", "params", "parameters"}
)

func isNameKey(k []byte) bool {
	switch string(k) {
	case "name", "tool_name", "tool", "function":
		return true
	}
	return false
}

func isArgsKey(k []byte) bool {
	switch string(k) {
	case "arguments", "args", "params", "parameters":
		return true
	}
	return false
}

// isMetaKey reports keys that describe the call rather than being
// arguments when arguments sit at the top level.
func isMetaKey(k []byte) bool {
	switch string(k) {
	case "id", "call_id", "type":
		return true
	}
	return false
}

func isPathKey(k []byte) bool {
	switch string(k) {
	case "path", "file", "filePath", "file_path", "filename", "target_file":
		return true
	}
	return false
}

// shape is the interpretation of one JSON object as a call.
type shape struct {
	call Call
	// explicit: the arguments were under an alias key or in the OpenAI
	// function shape (a bare object needs this to count as a call).
	explicit bool
	// definition: the object describes a tool rather than calling it
	// (a "description" beside "parameters", or JSON Schema arguments
	// with "properties"), as in a tools list a model repeats.
	definition bool
	// failure, when the object is not a usable call.
	reason string
	err    error
}

// buildCall interprets the object starting at offset obj of b, whose own
// members are recorded at the given depth. immutable says that b is never
// written again (the stream buffer, a repaired copy), so strings may view
// it without copying.
func buildCall(b []byte, obj, depth int, members []member, immutable bool) shape {
	var nameM, argsM, idM, fnM *member
	definition := false
	for i := range members {
		m := &members[i]
		if m.depth != depth || m.parent != obj || m.keyStart < 0 {
			continue
		}
		k := b[m.keyStart:m.keyEnd]
		switch {
		case isNameKey(k) && m.kind == '"':
			if nameM == nil || string(k) == "name" {
				nameM = m
			}
		case string(k) == "function" && m.kind == '{':
			fnM = m
		case isArgsKey(k):
			if argsM == nil {
				argsM = m
			}
		case (string(k) == "id" || string(k) == "call_id") && m.kind == '"':
			idM = m
		case string(k) == "description":
			definition = true
		}
	}
	var s shape
	if argsM != nil && argsM.kind == '{' {
		// {"name", "description", "parameters": {…}} is how tools are
		// declared to a model; arguments that are a JSON Schema are too.
		s.definition = definition && string(b[argsM.keyStart:argsM.keyEnd]) == "parameters" ||
			hasMember(b, members, argsM.valStart, depth+1, "properties")
	}
	if idM != nil {
		s.call.ID, _ = unquoteIn(b[idM.valStart:idM.valEnd], immutable)
	}
	if nameM == nil && fnM != nil {
		// OpenAI shape: the name and arguments live one level down.
		inner := buildCall(b, fnM.valStart, depth+1, members, immutable)
		inner.definition = inner.definition || definition
		if inner.err == nil {
			inner.explicit = true
			if inner.call.ID == "" {
				inner.call.ID = s.call.ID
			}
		}
		return inner
	}
	if nameM == nil {
		s.err, s.reason = ErrNotACall, `no tool name: expected a "name" key with a string value`
		return s
	}
	name, ok := unquoteIn(b[nameM.valStart:nameM.valEnd], immutable)
	if !ok || name == "" || strings.IndexFunc(name, func(r rune) bool { return r < 0x20 }) >= 0 {
		s.err, s.reason = ErrNotACall, "the tool name is empty or not a valid string"
		return s
	}
	if !validName(name) {
		s.err, s.reason = ErrNotACall, nameReason(name)
		return s
	}
	s.call.Name = name
	if argsM != nil {
		s.explicit = true
		args, repaired, reason := argumentsValue(b, argsM)
		if reason != "" {
			s.err, s.reason = ErrBadArguments, reason
			return s
		}
		s.call.Arguments, s.call.Repaired = args, repaired
		return s
	}
	// Arguments at the top level: every member but the name and metadata.
	var out []byte
	for i := range members {
		m := &members[i]
		if m.depth != depth || m.parent != obj || m == nameM || m.keyStart < 0 ||
			isMetaKey(b[m.keyStart:m.keyEnd]) {
			continue
		}
		if out == nil {
			out = append(out, '{')
		} else {
			out = append(out, ',')
		}
		out = append(out, b[m.keyStart-1:m.keyEnd+1]...)
		out = append(out, ':')
		out = append(out, b[m.valStart:m.valEnd]...)
	}
	if out == nil {
		s.call.Arguments = json.RawMessage("{}")
	} else {
		s.call.Arguments = append(out, '}')
	}
	return s
}

// callShapes interprets a complete JSON value v (members relative to v)
// as calls: one call object, an array of them, or llama.cpp's generic
// envelopes {"tool_call": {…}} and {"tool_calls": [{…}, …]}, whose
// wrapper key is never a tool name. It appends to out. A value that is
// not made of call objects gives one shape with the error.
func callShapes(v []byte, ms []member, out []shape) []shape {
	if v[0] == '{' {
		sh := buildCall(v, 0, 1, ms, true)
		if sh.err == nil {
			return append(out, sh)
		}
		if env, ok := genericEnvelope(v, ms); ok {
			if env.kind == '{' {
				return append(out, buildCall(v, env.valStart, 2, ms, true))
			}
			return callArray(v, ms, env.valStart, 2, out)
		}
		return append(out, sh)
	}
	return callArray(v, ms, 0, 1, out)
}

// callArray appends the shapes of the elements of the array at offset arr
// whose elements sit at the given depth.
func callArray(v []byte, ms []member, arr, depth int, out []shape) []shape {
	n := len(out)
	for _, m := range ms {
		if m.depth != depth || m.parent != arr {
			continue
		}
		if m.kind != '{' {
			return append(out[:n], shape{err: ErrNotACall, reason: "every element of the array must be a call object, found " + kindName(m.kind)})
		}
		out = append(out, buildCall(v, m.valStart, depth+1, ms, true))
	}
	if len(out) == n {
		return append(out, shape{err: ErrNotACall, reason: "the array of calls is empty"})
	}
	return out
}

// genericEnvelope finds the only member of the root object when it is
// "tool_call" holding an object or "tool_calls" holding an array.
func genericEnvelope(v []byte, ms []member) (member, bool) {
	env, ok := onlyMember(v, ms)
	if !ok {
		return env, false
	}
	switch k := string(v[env.keyStart:env.keyEnd]); {
	case k == "tool_call" && env.kind == '{', k == "tool_calls" && env.kind == '[':
		return env, true
	}
	return env, false
}

// onlyMember returns the member of the root object v when it has exactly
// one.
func onlyMember(v []byte, ms []member) (member, bool) {
	var env member
	n := 0
	for _, m := range ms {
		if m.depth != 1 {
			continue
		}
		if n++; n > 1 {
			return env, false
		}
		env = m
	}
	return env, n == 1 && v[0] == '{'
}

// hasMember reports whether the object at offset obj, whose members sit
// at depth, has the key.
func hasMember(b []byte, members []member, obj, depth int, key string) bool {
	for i := range members {
		m := &members[i]
		if m.depth == depth && m.parent == obj && m.keyStart >= 0 && string(b[m.keyStart:m.keyEnd]) == key {
			return true
		}
	}
	return false
}

// genericResponse returns the text of llama.cpp's {"response": "…"}, an
// object with that one string member.
func genericResponse(v []byte, ms []member) (string, bool) {
	env, ok := onlyMember(v, ms)
	if !ok || env.kind != '"' || string(v[env.keyStart:env.keyEnd]) != "response" {
		return "", false
	}
	return unquote(v[env.valStart:env.valEnd])
}

// argumentsValue turns the value of an arguments key into a JSON object;
// repaired reports that slips in stringified arguments were fixed.
func argumentsValue(b []byte, m *member) (args json.RawMessage, repaired bool, reason string) {
	v := b[m.valStart:m.valEnd]
	switch m.kind {
	case '{':
		return v, false, ""
	case 'n':
		return json.RawMessage("{}"), false, ""
	case '"':
		// Stringified arguments: decode once.
		s, ok := unquote(v)
		if !ok {
			return nil, false, "the arguments string is not a valid JSON string"
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 {
			return json.RawMessage("{}"), false, ""
		}
		var jm jsonMachine
		jm.reset(0)
		end := jm.run(inner, 0)
		jm.atEOF(inner)
		if !jm.done() || inner[0] != '{' || skipSpace(inner, end) != len(inner) {
			return nil, false, "the arguments are a string that does not hold a JSON object; write them as a JSON object"
		}
		rawCtl := jm.rawCtl
		if jm.slipped {
			// The slips a call's own JSON may have (a trailing comma,
			// True/None) are repaired inside the string too, or refused.
			var ok bool
			inner = fixSlips(inner)
			if _, rawCtl, ok = revalidate(inner); !ok {
				return nil, false, "the arguments string holds invalid JSON that could not be repaired"
			}
		}
		if rawCtl {
			inner = escapeControl(inner)
		}
		return inner, jm.slipped, ""
	}
	return nil, false, "the arguments must be a JSON object, not " + kindName(m.kind)
}

func kindName(k byte) string {
	switch k {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "an object"
}

// unquoteIn is unquote that, when q lies in a string's memory and needs
// no decoding, returns a view of it instead of a copy.
func unquoteIn(q []byte, immutable bool) (string, bool) {
	if immutable && len(q) > 2 && q[0] == '"' && q[len(q)-1] == '"' && bytes.IndexByte(q, '\\') < 0 {
		return unsafe.String(&q[1], len(q)-2), true
	}
	return unquote(q)
}

// unquote decodes a JSON string literal (with its quotes). Raw control
// characters, which models emit and the machine tolerates, are kept.
func unquote(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	var s string
	if err := json.Unmarshal(escapeControl(q), &s); err != nil {
		return "", false
	}
	return s, true
}

// escapeControl returns b with raw control characters inside JSON strings
// escaped, so that the result is valid JSON. b is not modified.
func escapeControl(b []byte) []byte {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(b)+16)
	in, esc := false, false
	for _, c := range b {
		switch {
		case !in:
			if c == '"' {
				in = true
			}
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case c == '"':
			in = false
		case c < 0x20:
			switch c {
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			}
			continue
		}
		out = append(out, c)
	}
	return out
}
