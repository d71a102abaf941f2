package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Qwen3-Coder writes arguments as XML-like parameters instead of JSON:
//
//	<tool_call>
//	<function=write_file>
//	<parameter=path>
//	main.go
//	</parameter>
//	<parameter=content>
//	package main
//	</parameter>
//	</function>
//	</tool_call>
//
// Each value is raw text up to </parameter>, with one leading and one
// trailing newline removed; it becomes a JSON string (the tool's schema,
// not the parser, decides whether "42" means a number). Values are not
// JSON, so nothing inside them is markup except </parameter> itself.

// MiniMax-M2 writes the same structure with quoted attributes inside
// <minimax:tool_call>…</minimax:tool_call> (vLLM minimax_m2_tool_parser):
//
//	<invoke name="get_weather">
//	<parameter name="city">Seattle</parameter>
//	</invoke>
//
// Step3 prefixes the tags with "steptml:" and frames each item with
// special tokens (vLLM step3_tool_parser):
//
//	<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="location">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
//
// xmlDialect is one such spelling; the reader below serves them all.
type xmlDialect struct {
	fnOpen, fnClose   string // an item opens with fnOpen NAME '>'
	parOpen, parClose string // a parameter with parOpen KEY '>'
	quoted            bool   // NAME and KEY are quoted attribute values
	// frame holds markup that may stand between items (Step3's
	// per-item tokens); it is dropped.
	frame []string
	// typed: a parameter tag may carry string="true" (the value is text)
	// or string="false" (the value is JSON), as DSML writes them.
	typed bool
}

// fnStem is the item opener without its name attribute ("<invoke"): an
// item that starts with it but has no readable name is a broken item.
func (d *xmlDialect) fnStem() string { return strings.TrimSuffix(d.fnOpen, " name=") }

var (
	qwenXML    = &xmlDialect{fnOpen: functionOpen, fnClose: functionClose, parOpen: "<parameter=", parClose: "</parameter>"}
	minimaxXML = &xmlDialect{fnOpen: "<invoke name=", fnClose: "</invoke>", parOpen: "<parameter name=", parClose: "</parameter>", quoted: true}
	dsmlXML    = &xmlDialect{fnOpen: "<｜DSML｜invoke name=", fnClose: "</｜DSML｜invoke>", parOpen: "<｜DSML｜parameter name=",
		parClose: "</｜DSML｜parameter>", quoted: true, typed: true}
	// A function tag's parameters in quoted-attribute spelling:
	// <parameter name="KEY"> (distilled and harness-prompted models) and
	// MiniCPM5's <param name="KEY">…</param> (SGLang minicpm5 detector).
	qwenNamedXML = &xmlDialect{fnOpen: functionOpen, fnClose: functionClose, parOpen: "<parameter name=", parClose: "</parameter>", quoted: true}
	qwenParamXML = &xmlDialect{fnOpen: functionOpen, fnClose: functionClose, parOpen: "<param name=", parClose: "</param>", quoted: true}
	step3XML     = &xmlDialect{fnOpen: "<steptml:invoke name=", fnClose: "</steptml:invoke>", parOpen: "<steptml:parameter name=",
		parClose: "</steptml:parameter>", quoted: true, frame: []string{"<｜tool_call_begin｜>function<｜tool_sep｜>", "<｜tool_call_end｜>"}}
)

// skipFrame returns the offset past the frame tokens and blank space at
// b[i], and need when a partial token ends the buffer.
func (d *xmlDialect) skipFrame(b []byte, i int, eof bool) (int, bool) {
	for {
		matched := false
		for _, t := range d.frame {
			full, partial := hasPrefixOrPartial(b[i:], t)
			if partial && !eof {
				return i, true
			}
			if full {
				i, matched = skipSpace(b, i+len(t)), true
			}
		}
		if !matched {
			return i, false
		}
	}
}

// dialect is the spelling of the current item's XML-like call.
func (k *block) dialect() *xmlDialect {
	if k.xml != nil {
		return k.xml
	}
	return qwenXML
}

// params is the state of a parameter list being read.
type params struct {
	args     []byte // the JSON object built so far, without its closing brace
	keyStart int    // the current parameter's name
	keyEnd   int
	valStart int  // -1 between parameters
	json     bool // the current value is JSON (DSML string="false")
	lt       byteFinder
}

// paramsAllowed reports whether the current item is named by a
// <function=NAME> tag and so may use parameters.
func (k *block) paramsAllowed() bool {
	return k.items == 0 && k.format == FormatFunctionTag || k.itemName != ""
}

// startParams begins a parameter list at b[i], which starts the
// dialect's parameter opener.
func (s *Stream) startParams(i int) {
	k := &s.blk
	k.par.args = append(k.par.args[:0], '{')
	k.par.valStart = -1
	k.state = bParams
	s.pos = i
}

// valueEnd finds the end of the value that starts before s.pos, looking
// only at '<' bytes: the first of the tags in ends. It returns the tag's
// index and which one it is, or q=-1 when the buffer ends without any;
// more is true when the answer needs more input, and s.pos is then where
// the search resumes. Shared by the Qwen3-Coder <parameter=…> and GLM
// <arg_value> readers.
func (s *Stream) valueEnd(ends ...string) (q, which int, more bool) {
	b, p := s.buf, &s.blk.par
	for q = p.lt.next(b, s.pos, '<'); q >= 0; q = p.lt.next(b, q+1, '<') {
		for w, e := range ends {
			full, partial := hasPrefixOrPartial(b[q:], e)
			if full {
				return q, w, false
			}
			if partial && !s.eof {
				s.pos = q
				return -1, 0, true
			}
		}
	}
	s.pos = len(b)
	return -1, 0, !s.eof
}

// A value ends at its close tag, or — when the model left the close tag
// out — at the next parameter or the end of the function, as the
// Qwen3-Coder reference parser reads it (vLLM PR 23099). A close tag the
// model garbled on the way ("</parameter/>", "</parameter1>", a cut
// "</parameter") is then left at the end of the value: trimLeakedClose
// drops it (SGLang PR 27337). Such a call is marked Repaired.

// missingCloseAt reports whether the tag at b[q] (which: 1 the next
// parameter, 2 the function's close) really ends a value whose close tag
// is missing. A parameter must start its line; a function close must be
// followed by blank space and then the end, a close tag or the next
// function. Anything else is content that happens to look like a tag.
func missingCloseAt(d *xmlDialect, b []byte, q, which int, eof bool) (ends, need bool) {
	if which == 1 {
		return q > 0 && b[q-1] == '\n', false
	}
	const maxGap = 64
	from := q + len(d.fnClose)
	win := b[from:min(len(b), from+maxGap)]
	j := skipSpace(win, 0)
	switch {
	case j == len(win) && len(win) == maxGap:
		return true, false
	case j == len(win):
		return eof, !eof
	}
	rest := win[j:]
	for _, t := range []string{"</", d.fnOpen} {
		full, partial := hasPrefixOrPartial(rest, t)
		if full {
			return true, false
		}
		if partial && !eof {
			return false, true
		}
	}
	return false, false
}

// trimLeakedClose removes a garbled close tag from the end of val.
func trimLeakedClose(val []byte, close string) []byte {
	t := trimBlankRight(val)
	stem := close[:len(close)-1] // without '>'
	k := bytes.LastIndex(t, []byte(stem))
	if k < 0 || len(t)-k-len(stem) > 3 || bytes.ContainsAny(t[k+len(stem):], "<\n") {
		return val
	}
	return t[:k]
}

// paramsStep reads parameters until </function>, returning true when the
// state changed and false when it needs more input.
func (s *Stream) paramsStep() bool {
	k := &s.blk
	p := &k.par
	b := s.buf
	d := k.dialect()
	for {
		if p.valStart >= 0 {
			// Inside a value: find </parameter>, or where it is missing.
			q, which, more := s.valueEnd(d.parClose, d.parOpen, d.fnClose)
			for !more && which != 0 && q >= 0 {
				ends, need := missingCloseAt(d, b, q, which, s.eof)
				if need {
					s.pos, more = q, !s.eof
					break
				}
				if ends {
					break
				}
				s.pos = q + 1 // content that only looks like a tag
				q, which, more = s.valueEnd(d.parClose, d.parOpen, d.fnClose)
			}
			if more {
				return false
			}
			if q < 0 {
				s.failBlock(len(b), ErrTruncated, "output ended inside the value of parameter "+string(b[p.keyStart:p.keyEnd])+"; the call was not used")
				return true
			}
			val := b[p.valStart:q]
			s.pos = q + len(d.parClose)
			if which != 0 {
				val = trimLeakedClose(val, d.parClose)
				s.pos = q // the next tag is read in turn
				k.repaired = true
			}
			s.addParam(b[p.keyStart:p.keyEnd], val)
			p.valStart = -1
			continue
		}
		i := skipGap(b, s.pos)
		if i == len(b) {
			if !s.eof {
				return false
			}
			// Cut between parameters: a value boundary, so the call stands.
			k.itemEnd = s.pos
			return s.finishParams(true)
		}
		if full, partial := hasPrefixOrPartial(b[i:], d.fnClose); full {
			k.itemEnd = i
			s.pos = i
			return s.finishParams(false)
		} else if partial && !s.eof {
			return false
		} else if partial {
			k.itemEnd = s.pos
			s.pos = len(b)
			return s.finishParams(true)
		}
		if c := k.closeTag(); k.open != nil && c != d.fnClose {
			// The wrapper closes where </function> was left out: the
			// item ends there (vLLM's Qwen3 XML parser reads it so).
			full, partial := hasPrefixOrPartial(b[i:], c)
			if partial && !s.eof {
				return false
			}
			if full {
				k.itemEnd, s.pos, k.repaired = i, i, true
				return s.finishParams(false)
			}
		}
		full, partial := hasPrefixOrPartial(b[i:], d.parOpen)
		if partial && !s.eof {
			return false
		}
		if !full {
			return s.failItemAt(i, ErrInvalidJSON, "expected "+d.parOpen+"NAME> or "+d.fnClose+", found "+quoteByte(b[i]))
		}
		j := i + len(d.parOpen)
		e := bytes.IndexByte(b[j:min(len(b), j+maxNameLen)], '>')
		if e < 0 {
			if !s.eof && len(b)-j < maxNameLen {
				return false
			}
			s.failBlock(i, ErrInvalidJSON, "a "+d.parOpen+" tag without its closing '>'")
			return true
		}
		p.keyStart, p.keyEnd, p.json = j, j+e, false
		if d.typed {
			p.keyEnd, p.json = typedAttr(b, j, j+e)
		}
		if d.quoted {
			p.keyStart, p.keyEnd = unquoteSpan(b, p.keyStart, p.keyEnd)
		}
		if p.keyEnd <= p.keyStart || bytes.IndexByte(b[p.keyStart:p.keyEnd], '\n') >= 0 {
			return s.failItemAt(i, ErrInvalidJSON, "a parameter needs a name on one line: "+d.parOpen+"NAME>")
		}
		p.valStart = j + e + 1
		s.pos = p.valStart
	}
}

// typedAttr splits a DSML parameter tag's inside, `"KEY" string="BOOL"`,
// at the end of the key's span; json reports string="false". Without the
// attribute the span is returned whole.
func typedAttr(b []byte, i, j int) (keyEnd int, json bool) {
	for _, a := range [...]struct {
		lit  string
		json bool
	}{{` string="true"`, false}, {` string="false"`, true}} {
		if j-i > len(a.lit) && string(b[j-len(a.lit):j]) == a.lit {
			return j - len(a.lit), a.json
		}
	}
	return j, false
}

// unquoteSpan returns the inside of b[i:j] when it is one quoted word
// ("x" or 'x'), the span itself when it is a word without quotes or
// blank space (a slip with one meaning), or an empty span otherwise.
func unquoteSpan(b []byte, i, j int) (int, int) {
	if j-i >= 2 && (b[i] == '"' || b[i] == '\'') && b[j-1] == b[i] &&
		bytes.IndexByte(b[i+1:j-1], b[i]) < 0 {
		return i + 1, j - 1
	}
	if bytes.ContainsAny(b[i:j], "\"' \t\r\n") {
		return i, i
	}
	return i, j
}

// addParam appends "key": "value" to the arguments being built.
func (s *Stream) addParam(key, val []byte) {
	p := &s.blk.par
	val = bytes.TrimPrefix(val, []byte("\n"))
	val = bytes.TrimSuffix(val, []byte("\n"))
	if len(p.args) > 1 {
		p.args = append(p.args, ',')
	}
	p.args = appendJSONString(p.args, key)
	p.args = append(p.args, ':')
	if t := bytes.TrimSpace(val); p.json && json.Valid(t) {
		p.args = append(p.args, t...)
		return
	}
	p.args = appendJSONString(p.args, val)
	if isPathKey(key) {
		s.emit(Event{Kind: EventCallPath, Block: s.blk.seq, Format: s.blk.format, Path: string(val)})
	}
}

// finishParams turns the parameters into the item's arguments.
func (s *Stream) finishParams(repaired bool) bool {
	k := &s.blk
	args := append(k.par.args, '}')
	k.par.args = nil // handed over to the call; a new list starts afresh
	k.state = bItems
	if !s.finishItem(args, nil, 0, false, repaired) {
		return true
	}
	if repaired {
		s.endBlock(len(s.buf))
		return false
	}
	return true
}

// appendJSONString appends s as a JSON string literal. Invalid UTF-8
// becomes U+FFFD, so the result is always valid JSON.
func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}
