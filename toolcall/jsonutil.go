package toolcall

// Truncation repair and the small lexical helpers of the JSON machine.

// truncation explains why an unfinished value cannot be repaired, or
// returns "" when it stopped at a value boundary: after a complete value,
// or a complete value plus a dangling comma. Only then may the open
// containers be closed.
func (m *jsonMachine) truncation() string {
	switch m.state {
	case jCommaOrEnd:
		return ""
	case jKey:
		return "" // complete member plus dangling comma
	case jValue:
		if m.lastComma {
			return "" // array element plus dangling comma
		}
		if len(m.stack) == 0 {
			return "output ended before the JSON value began"
		}
		return "output ended after an object key, before its value"
	case jValueOrEnd, jKeyOrEnd:
		return "output ended right after an opening bracket"
	case jColon:
		return "output ended after an object key"
	case jString, jEscape, jUnicode:
		if m.inKey {
			return "output ended inside an object key"
		}
		return "output ended inside a string"
	case jNumber:
		return "output ended inside a number"
	case jLiteral:
		return "output ended inside the literal " + m.lit
	}
	return "output ended inside the JSON value"
}

// repair returns the value closed at its last boundary: trailing
// whitespace and a dangling comma removed, then every open container
// closed innermost first. Call only when truncation() == "".
func (m *jsonMachine) repair(b []byte) []byte {
	j := len(b)
	for j > m.start && isSpace(b[j-1]) {
		j--
	}
	if j > m.start && b[j-1] == ',' {
		j--
	}
	out := make([]byte, 0, j-m.start+len(m.stack))
	out = append(out, b[m.start:j]...)
	for k := len(m.stack) - 1; k >= 0; k-- {
		out = append(out, closer(m.stack[k]))
	}
	return out
}

// rollback returns the unfinished value cut back to its last complete
// call object, the last finished element of an array at depth 1 or 2 (a
// list of calls, an envelope's list of actions) whose containers are all
// still open, followed by the closers of those containers. With
// envelope, a finished member of the root object counts too (an
// envelope's assistant_text or its closed list of actions): that is only
// safe for envelopes, whose members are not a call's arguments. It
// returns nil when there is none. Otherwise only whole array elements are
// dropped, never part of an object, so the result never holds half of a
// call's arguments.
func (m *jsonMachine) rollback(b []byte, envelope bool) []byte {
	for i := len(m.members) - 1; i >= 0; i-- {
		mb := &m.members[i]
		d := mb.depth
		whole := mb.keyStart < 0 && mb.kind == '{' && d <= 2 || envelope && d == 1 && mb.keyStart >= 0
		if !whole || len(m.stack) < d || m.contStart[d-1] != mb.parent {
			continue
		}
		out := make([]byte, 0, mb.valEnd-m.start+d)
		out = append(out, b[m.start:mb.valEnd]...)
		for k := d - 1; k >= 0; k-- {
			out = append(out, closer(m.stack[k]))
		}
		return out
	}
	return nil
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// pyLiterals are Python's spellings of true, false and null.
var pyLiterals = map[byte]string{'T': "True", 'F': "False", 'N': "None"}

// fixSlips returns a copy of v, a value the machine accepted with
// slipped set, as valid JSON: commas before a closing bracket dropped and
// Python literals spelled as JSON. Only bytes outside strings change, and
// the machine has already checked that every letter there starts a
// literal.
func fixSlips(v []byte) []byte {
	out := make([]byte, 0, len(v))
	in, esc := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == ',':
			if j := skipSpace(v, i+1); j < len(v) && (v[j] == '}' || v[j] == ']') {
				continue
			}
		case c == 'T' || c == 'F' || c == 'N':
			lit := pyLiterals[c]
			out = append(out, jsonLiteral(lit)...)
			i += len(lit) - 1
			continue
		}
		out = append(out, c)
	}
	return out
}

// jsonLiteral is the JSON spelling of a Python literal.
func jsonLiteral(py string) string {
	switch py {
	case "True":
		return "true"
	case "False":
		return "false"
	}
	return "null"
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isNumByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// validNumber checks the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == n {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == n {
			return false
		}
	}
	return i == len(s)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		if c == '\'' {
			return `"'"`
		}
		return "'" + string(c) + "'"
	}
	const hex = "0123456789abcdef"
	return "byte 0x" + string([]byte{hex[c>>4], hex[c&15]})
}
