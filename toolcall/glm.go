package toolcall

import (
	"bytes"
	"encoding/json"
)

// GLM-4.5/4.6 write the name as text inside <tool_call> and each argument
// as a key/value tag pair (llama.cpp tests/test-chat.cpp, vLLM
// glm4_moe_tool_parser):
//
//	<tool_call>get_weather
//	<arg_key>city</arg_key>
//	<arg_value>Beijing</arg_value>
//	</tool_call>
//
// The chat template writes string values raw and other values as JSON,
// so a value that is a JSON number, object, array, true, false or null is
// kept as JSON and anything else becomes a string. Values are raw text up
// to </arg_value>: nothing inside is markup.

const (
	argKeyOpen  = "<arg_key>"
	argKeyClose = "</arg_key>"
	argValOpen  = "<arg_value>"
	argValClose = "</arg_value>"
)

// glmHeader matches "NAME<arg_key>" or "NAME</tool_call>" at b[i]
// inside a <tool_call>, blank space allowed before either tag. It
// returns the name and where the arguments start. GLM-4.7 writes a call
// without arguments as the bare name ("<tool_call>get_time</tool_call>",
// vLLM's glm47 parser tests); prose that shows the format is told apart
// by the sentence around the block (sentence.go), not here.
func glmHeader(b []byte, i int, eof bool) (name string, next int, ok, need bool) {
	e := i
	for e < len(b) && e-i < maxNameLen && isNameByte(b[e]) {
		e++
	}
	if e == i {
		return "", 0, false, false
	}
	j := skipGap(b, e)
	if j == len(b) {
		return "", 0, false, !eof && e-i < maxNameLen
	}
	for _, t := range []string{argKeyOpen, "</tool_call>"} {
		full, partial := hasPrefixOrPartial(b[j:], t)
		if full {
			if name := string(b[i:e]); validName(name) {
				return name, j, true, false
			}
			return "", 0, false, false
		}
		if partial && !eof {
			return "", 0, false, true
		}
	}
	return "", 0, false, false
}

// glmStep reads key/value pairs until </tool_call>, which it leaves for
// blockItems. It reuses the parameter state (params.go): keyStart/keyEnd
// hold the key, valStart ≥ 0 while inside a value.
func (s *Stream) glmStep() bool {
	k := &s.blk
	p := &k.par
	b := s.buf
	for {
		if p.valStart >= 0 {
			q, _, more := s.valueEnd(argValClose)
			if more {
				return false
			}
			if q < 0 {
				s.failBlock(len(b), ErrTruncated, "output ended inside the value of argument "+string(b[p.keyStart:p.keyEnd])+"; the call was not used")
				return true
			}
			s.addGLMArg(b[p.keyStart:p.keyEnd], b[p.valStart:q])
			p.valStart = -1
			s.pos = q + len(argValClose)
			continue
		}
		i := skipGap(b, s.pos)
		if i == len(b) {
			if !s.eof {
				return false
			}
			k.itemEnd = s.pos
			return s.finishParams(true)
		}
		if full, partial := hasPrefixOrPartial(b[i:], "</tool_call>"); full {
			k.itemEnd, s.pos = i, i
			return s.finishParams(false)
		} else if partial && !s.eof {
			return false
		}
		full, partial := hasPrefixOrPartial(b[i:], argKeyOpen)
		if partial && !s.eof {
			return false
		}
		if !full {
			s.failBlock(i, ErrInvalidJSON, "expected <arg_key>NAME</arg_key><arg_value>VALUE</arg_value> or </tool_call>, found "+quoteByte(b[i]))
			return true
		}
		j := i + len(argKeyOpen)
		e := bytes.Index(b[j:min(len(b), j+maxNameLen+len(argKeyClose))], []byte(argKeyClose))
		if e < 0 {
			if !s.eof && len(b)-j < maxNameLen+len(argKeyClose) {
				return false
			}
			s.failBlock(i, ErrInvalidJSON, "an <arg_key> without its </arg_key>")
			return true
		}
		v := skipGap(b, j+e+len(argKeyClose))
		full, partial = hasPrefixOrPartial(b[v:], argValOpen)
		if (partial || v == len(b)) && !s.eof {
			return false
		}
		if !full || e == 0 {
			s.failBlock(i, ErrInvalidJSON, "each <arg_key>NAME</arg_key> needs its <arg_value>VALUE</arg_value>")
			return true
		}
		p.keyStart, p.keyEnd = j, j+e
		p.valStart = v + len(argValOpen)
		s.pos = p.valStart
	}
}

// addGLMArg appends "key": value, keeping JSON values other than strings.
func (s *Stream) addGLMArg(key, val []byte) {
	p := &s.blk.par
	if len(p.args) > 1 {
		p.args = append(p.args, ',')
	}
	p.args = appendJSONString(p.args, bytes.TrimSpace(key))
	p.args = append(p.args, ':')
	t := bytes.TrimSpace(val)
	if len(t) > 0 && t[0] != '"' && json.Valid(t) {
		p.args = append(p.args, t...)
		return
	}
	p.args = appendJSONString(p.args, val)
	if isPathKey(key) {
		s.emit(Event{Kind: EventCallPath, Block: s.blk.seq, Format: s.blk.format, Path: string(val)})
	}
}
