package toolcall

import "bytes"

// Recognising markup at a trigger byte. Every recognizer looks only at a
// bounded window after the trigger and answers one of: this is markup
// (and how it continues), this is not markup, or "need more bytes". Need
// is only answered before the end of input, so the answer never depends
// on how the text was split.

type verdict uint8

const (
	vNone      verdict = iota // not markup: the trigger byte is prose
	vNeed                     // undecided until more bytes arrive
	vBlock                    // a call block opens
	vThink                    // <think> opens
	vCandidate                // bare JSON may start here
	vFence                    // a fence of another language opens
	vJSONFence                // a ```json fence holding a JSON value
)

// opener describes a tag that opens a call block.
type opener struct {
	tag    string
	close  string
	format Format
	soft   bool // a common word: markup only when JSON follows
	wrap   bool // may hold <function=NAME> items
}

var tagOpeners = []opener{
	{tag: "<tool_call>", close: "</tool_call>", format: FormatTag, wrap: true},
	{tag: "<function_call>", close: "</function_call>", format: FormatTag, wrap: true},
	{tag: "<tools>", close: "</tools>", format: FormatTag, soft: true},
	{tag: "<tool>", close: "</tool>", format: FormatTag, soft: true},
	{tag: "<response>", close: "</response>", format: FormatTag, soft: true},
	{tag: "<json>", close: "</json>", format: FormatTag, soft: true},
}

const (
	thinkOpen      = "<think>"
	thinkClose     = "</think>"
	functionOpen   = "<function="
	functionClose  = "</function>"
	pythonTag      = "<|python_tag|>"
	mistralTag     = "[TOOL_CALLS]"
	mistralArgs    = "[ARGS]"
	mistralCallID  = "[CALL_ID]"
	fenceMark      = "```"
	maxNameLen     = 128
	maxFenceInfo   = 256
	functionaryTag = ">>>"
)

var llamaEnds = []string{"<|eom_id|>", "<|eot_id|>"}

// rec is a recognizer's answer.
type rec struct {
	v       verdict
	end     int // where the content after the markup begins
	open    *opener
	format  Format
	name    string // tool name carried by the markup
	fenced  bool   // a call-capable fence opened at the trigger
	lineEnd int    // for fences: offset just past the opener line
	yips    string // "yips-agent" or "yips-tools"
}

// recognize decides what starts at b[p] in prose. eof reports whether b
// holds the whole input.
func (s *Stream) recognize(b []byte, p int, eof bool) rec {
	f := s.cfg.formats
	switch b[p] {
	case '<':
		return s.recognizeTag(b, p, eof, false)
	case '[':
		if f&FormatMistral != 0 {
			full, partial := hasPrefixOrPartial(b[p:], mistralTag)
			if full {
				return rec{v: vBlock, end: p + len(mistralTag), format: FormatMistral}
			}
			if partial && !eof {
				return rec{v: vNeed}
			}
		}
		if f&FormatJSON != 0 && p >= s.noCandUntil {
			return rec{v: vCandidate, end: p}
		}
	case '{':
		if f&FormatJSON != 0 && p >= s.noCandUntil {
			return rec{v: vCandidate, end: p}
		}
	case '`':
		if atLineStart(b, p) {
			return s.recognizeFence(b, p, eof)
		}
	case '>':
		if f&FormatFunctionary != 0 && atLineStart(b, p) {
			return recognizeFunctionary(b, p, eof)
		}
	}
	return rec{v: vNone}
}

// recognizeTag matches the '<' openers. inThink limits it to </think>
// and the explicit call openers.
func (s *Stream) recognizeTag(b []byte, p int, eof bool, inThink bool) rec {
	f := s.cfg.formats
	need := false
	if f&FormatTag != 0 {
		for i := range tagOpeners {
			o := &tagOpeners[i]
			full, partial := hasPrefixOrPartial(b[p:], o.tag)
			if partial {
				need = true
				continue
			}
			if !full {
				continue
			}
			end := p + len(o.tag)
			if o.soft {
				if inThink {
					return rec{v: vNone}
				}
				j := skipSpace(b, end)
				if j == len(b) {
					if eof {
						return rec{v: vNone}
					}
					return rec{v: vNeed}
				}
				if b[j] != '{' && b[j] != '[' {
					return rec{v: vNone}
				}
			}
			return rec{v: vBlock, end: end, open: o, format: FormatTag}
		}
	}
	if f&FormatFunctionTag != 0 {
		if r := recognizeFunctionTag(b, p, eof); r.v != vNone {
			return r
		}
	}
	if f&FormatPythonTag != 0 {
		full, partial := hasPrefixOrPartial(b[p:], pythonTag)
		if full {
			return rec{v: vBlock, end: p + len(pythonTag), format: FormatPythonTag}
		}
		need = need || partial
	}
	if inThink {
		full, partial := hasPrefixOrPartial(b[p:], thinkClose)
		if full {
			return rec{v: vThink, end: p + len(thinkClose)}
		}
		need = need || partial
	} else {
		full, partial := hasPrefixOrPartial(b[p:], thinkOpen)
		if full {
			return rec{v: vThink, end: p + len(thinkOpen)}
		}
		need = need || partial
	}
	if need && !eof {
		return rec{v: vNeed}
	}
	return rec{v: vNone}
}

// recognizeFunctionTag matches <function=NAME>.
func recognizeFunctionTag(b []byte, p int, eof bool) rec {
	full, partial := hasPrefixOrPartial(b[p:], functionOpen)
	if partial && !eof {
		return rec{v: vNeed}
	}
	if !full {
		return rec{v: vNone}
	}
	i := p + len(functionOpen)
	for ; i < len(b) && i-p < maxNameLen; i++ {
		if b[i] == '>' {
			name := b[p+len(functionOpen) : i]
			if len(name) == 0 {
				return rec{v: vNone}
			}
			return rec{v: vBlock, end: i + 1, format: FormatFunctionTag, name: string(name)}
		}
		if !isNameByte(b[i]) {
			return rec{v: vNone}
		}
	}
	if i == len(b) && !eof {
		return rec{v: vNeed}
	}
	return rec{v: vNone}
}

// recognizeFence reads a ``` line and says what the fence holds.
func (s *Stream) recognizeFence(b []byte, p int, eof bool) rec {
	full, partial := hasPrefixOrPartial(b[p:], fenceMark)
	if partial && !eof {
		return rec{v: vNeed}
	}
	if !full {
		return rec{v: vNone}
	}
	nl := bytes.IndexByte(b[p:min(len(b), p+maxFenceInfo)], '\n')
	lineEnd := len(b)
	switch {
	case nl >= 0:
		lineEnd = p + nl + 1
	case len(b)-p >= maxFenceInfo:
		// An absurdly long info string: not a fence. Decided on the
		// window alone, so the answer is the same before and at the end.
		return rec{v: vNone}
	case !eof:
		return rec{v: vNeed}
	}
	info := bytes.TrimSpace(bytes.TrimLeft(b[p:lineEnd], "`"))
	if bytes.IndexByte(info, '`') >= 0 {
		return rec{v: vNone} // inline code such as ```x```
	}
	lang := info
	if k := bytes.IndexAny(lang, " \t{"); k >= 0 {
		lang = lang[:k]
	}
	lang = bytes.ToLower(lang)
	switch string(lang) {
	case "yips-agent", "yips-tools":
		if s.cfg.formats&FormatYips != 0 {
			return rec{v: vBlock, end: lineEnd, format: FormatYips, yips: string(lang), lineEnd: lineEnd}
		}
	case "", "json", "jsonc", "json5", "tool_call", "tool_code", "xml":
		j := skipSpace(b, lineEnd)
		if j == len(b) {
			if !eof {
				return rec{v: vNeed}
			}
			break
		}
		if (b[j] == '{' || b[j] == '[') && string(lang) != "xml" {
			if s.cfg.formats&FormatJSON != 0 {
				return rec{v: vJSONFence, end: j, lineEnd: lineEnd}
			}
			break
		}
		if b[j] == '<' || b[j] == '[' {
			r := s.recognize(b, j, eof)
			switch r.v {
			case vNeed:
				return r
			case vBlock:
				r.fenced = true
				r.lineEnd = lineEnd
				return r
			}
		}
	}
	return rec{v: vFence, end: lineEnd}
}

// recognizeFunctionary matches ">>>name\n{" at the start of a line.
func recognizeFunctionary(b []byte, p int, eof bool) rec {
	full, partial := hasPrefixOrPartial(b[p:], functionaryTag)
	if partial && !eof {
		return rec{v: vNeed}
	}
	if !full {
		return rec{v: vNone}
	}
	i := p + len(functionaryTag)
	for ; i < len(b) && i-p < maxNameLen; i++ {
		if b[i] == '\n' {
			break
		}
		if !isNameByte(b[i]) {
			return rec{v: vNone}
		}
	}
	if i == len(b) {
		if eof {
			return rec{v: vNone}
		}
		return rec{v: vNeed}
	}
	if b[i] != '\n' {
		return rec{v: vNone}
	}
	name := string(b[p+len(functionaryTag) : i])
	if name == "" || name == "all" { // >>>all introduces plain text
		return rec{v: vNone}
	}
	j := skipSpace(b, i+1)
	if j == len(b) {
		if eof {
			return rec{v: vNone}
		}
		return rec{v: vNeed}
	}
	if b[j] != '{' {
		return rec{v: vNone}
	}
	return rec{v: vBlock, end: j, format: FormatFunctionary, name: name}
}

// isFenceClose reports whether a closing fence line starts at b[p]:
// ``` at a line start followed by only spaces to the end of the line.
// It returns the offset past the line, or need when undecided.
func isFenceClose(b []byte, p int, eof bool) (end int, ok, need bool) {
	if !atLineStart(b, p) {
		return 0, false, false
	}
	full, partial := hasPrefixOrPartial(b[p:], fenceMark)
	if partial {
		return 0, false, !eof
	}
	if !full {
		return 0, false, false
	}
	i := p + len(fenceMark)
	for i < len(b) && b[i] == '`' {
		i++
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case '\n':
			return i + 1, true, false
		case ' ', '\t', '\r':
		default:
			return 0, false, false
		}
	}
	if !eof {
		return 0, false, true
	}
	return len(b), true, false
}
