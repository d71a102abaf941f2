package toolcall

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Python-style calls. Llama 3.1's built-in tools are written after
// <|python_tag|> as name.call(key="value"), and Llama 3.2/3.3/4 with the
// "pythonic" template write a list of calls:
//
//	<|python_tag|>brave_search.call(query="weather in SF")<|eom_id|>
//	[get_weather(city='San Francisco', metric='celsius'), register_user(name='John Doe', age=37)]
//
// (llama.cpp tests/test-chat.cpp; vLLM tests/tool_parsers
// test_pythonic_tool_parser.py). Only keyword arguments whose values are
// Python literals are accepted (strings, numbers, True/False/None, also
// spelled true/false/null as models slip into JSON's, lists, tuples and
// dicts of them); they are converted to a JSON object. Anything
// else is not a call. A bare list is a call only with an allow-list that
// names every function in it, and only when it ends the message, like
// bare JSON: without a list, "[see(a=1)]" in prose is ambiguous.

// pyParser reads Python call syntax from b.
type pyParser struct {
	b   []byte
	i   int
	out []byte
}

func (p *pyParser) ws() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *pyParser) ident() (string, bool) {
	s := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > s && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return string(p.b[s:p.i]), p.i > s && p.i-s <= maxNameLen
}

// namePart reads one dot-separated part of a tool name: the name rule
// (names.go) without '.' and ':', so MCP names such as
// mcp__srv__list-issues are read whole.
func (p *pyParser) namePart() (string, bool) {
	s := p.i
	for p.i < len(p.b) && p.i-s <= maxNameLen && isNameByte(p.b[p.i]) && p.b[p.i] != '.' && p.b[p.i] != ':' {
		p.i++
	}
	n := string(p.b[s:p.i])
	return n, validName(n) && (n[0] < '0' || n[0] > '9') && n[0] != '-'
}

// call parses NAME(.NAME)*(key=value, …) and returns the tool name (a
// trailing ".call" of Llama's built-ins dropped) and the arguments.
func (p *pyParser) call() (Call, bool) {
	p.ws()
	name, ok := p.namePart()
	if !ok {
		return Call{}, false
	}
	for p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		part, ok := p.namePart()
		if !ok {
			return Call{}, false
		}
		name += "." + part
	}
	if len(name) > 5 && name[len(name)-5:] == ".call" {
		name = name[:len(name)-5]
	}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '(' {
		return Call{}, false
	}
	p.i++
	p.out = append(p.out[:0], '{')
	for n := 0; ; n++ {
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ')' {
			p.i++
			break
		}
		if n > 0 {
			if p.i >= len(p.b) || p.b[p.i] != ',' {
				return Call{}, false
			}
			p.i++
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ')' {
				p.i++
				break
			}
			p.out = append(p.out, ',')
		}
		key, ok := p.ident()
		if !ok {
			return Call{}, false
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '=' {
			return Call{}, false // positional arguments have no name to map to
		}
		p.i++
		p.out = strconv.AppendQuote(p.out, key)
		p.out = append(p.out, ':')
		if !p.value(0) {
			return Call{}, false
		}
	}
	p.out = append(p.out, '}')
	args := json.RawMessage(append([]byte(nil), p.out...))
	if !json.Valid(args) {
		return Call{}, false
	}
	return Call{Name: name, Arguments: args, Kind: "tool"}, true
}

const maxPyDepth = 64

// value converts one Python literal to JSON.
func (p *pyParser) value(depth int) bool {
	p.ws()
	if p.i >= len(p.b) || depth > maxPyDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"' || c == '\'':
		return p.str()
	case c == '[' || c == '(':
		end := byte(']')
		if c == '(' {
			end = ')'
		}
		p.i++
		p.out = append(p.out, '[')
		return p.seq(end, depth, false)
	case c == '{':
		p.i++
		p.out = append(p.out, '{')
		return p.seq('}', depth, true)
	case c == '-' || c >= '0' && c <= '9':
		s := p.i
		p.i++
		for p.i < len(p.b) && (p.b[p.i] >= '0' && p.b[p.i] <= '9' || p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E' || p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		num := p.b[s:p.i]
		if !json.Valid(num) {
			return false
		}
		p.out = append(p.out, num...)
		return true
	default:
		w, _ := p.ident()
		switch w {
		case "True", "true":
			p.out = append(p.out, "true"...)
		case "False", "false":
			p.out = append(p.out, "false"...)
		case "None", "null":
			// (JSON's spellings too: models mix them into Python calls,
			// and a bare name is no Python literal, so none is taken
			// for anything else.)
			p.out = append(p.out, "null"...)
		default:
			return false
		}
		return true
	}
}

// seq reads the elements of a list, tuple or dict up to end.
func (p *pyParser) seq(end byte, depth int, dict bool) bool {
	for n := 0; ; n++ {
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == end {
			p.i++
			if dict {
				p.out = append(p.out, '}')
			} else {
				p.out = append(p.out, ']')
			}
			return true
		}
		if n > 0 {
			if p.i >= len(p.b) || p.b[p.i] != ',' {
				return false
			}
			p.i++
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == end {
				continue
			}
			p.out = append(p.out, ',')
		}
		if dict {
			p.ws()
			if p.i >= len(p.b) || (p.b[p.i] != '"' && p.b[p.i] != '\'') || !p.str() {
				return false // JSON keys are strings
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return false
			}
			p.i++
			p.out = append(p.out, ':')
		}
		if !p.value(depth + 1) {
			return false
		}
	}
}

// str converts a Python string literal ('…' or "…", no triple quotes or
// prefixes) to a JSON string.
func (p *pyParser) str() bool {
	q := p.b[p.i]
	p.i++
	var s []byte
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == q:
			p.i++
			if !utf8.Valid(s) {
				return false
			}
			p.out = strconv.AppendQuote(p.out, string(s))
			return true
		case c == '\n':
			return false
		case c == '\\' && p.i+1 < len(p.b):
			p.i++
			switch e := p.b[p.i]; e {
			case 'n':
				s = append(s, '\n')
			case 't':
				s = append(s, '\t')
			case 'r':
				s = append(s, '\r')
			case '0':
				s = append(s, 0)
			case '\\', '\'', '"', '/':
				s = append(s, e)
			case 'u':
				if p.i+4 < len(p.b) {
					if r, err := strconv.ParseUint(string(p.b[p.i+1:p.i+5]), 16, 32); err == nil {
						s = utf8.AppendRune(s, rune(r))
						p.i += 4
						break
					}
				}
				s = append(s, '\\', e)
			default:
				s = append(s, '\\', e)
			}
			p.i++
		default:
			s = append(s, c)
			p.i++
		}
	}
	return false
}

// parsePythonCalls parses b (trimmed) as one call, or a list of calls
// when list is set. It fails unless it consumes all of b.
func parsePythonCalls(b []byte, list bool) ([]Call, bool) {
	p := pyParser{b: b}
	p.ws()
	var calls []Call
	if !list {
		c, ok := p.call()
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	} else {
		if p.i >= len(b) || b[p.i] != '[' {
			return nil, false
		}
		p.i++
		for n := 0; ; n++ {
			p.ws()
			if p.i < len(b) && b[p.i] == ']' && n > 0 {
				p.i++
				break
			}
			if n > 0 {
				if p.i >= len(b) || b[p.i] != ',' {
					return nil, false
				}
				p.i++
			}
			c, ok := p.call()
			if !ok {
				return nil, false
			}
			calls = append(calls, c)
		}
	}
	p.ws()
	if p.i != len(b) {
		return nil, false
	}
	return calls, true
}
