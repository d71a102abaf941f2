package toolcall

import "bytes"

// Code fences: what a ``` line opens, and where a fence closes.

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
		j := skipGap(b, lineEnd)
		if j == len(b) {
			if !eof {
				return rec{v: vNeed}
			}
			break
		}
		if string(lang) == "tool_code" {
			switch ok, need := s.pyFenceAt(b, j, eof); {
			case need:
				return rec{v: vNeed}
			case ok:
				return rec{v: vPyFence, end: lineEnd}
			}
		}
		if b[j] == '{' || b[j] == '[' {
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
	for lim := i + maxBlankGap; i < len(b); i++ {
		if i == lim {
			return i, true, false // a long blank tail: the fence is closed
		}
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
