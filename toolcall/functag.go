package toolcall

// Recognizers for markup that names the tool: <function=NAME>,
// <function name="NAME"> and Functionary's >>>NAME.

// recognizeFunctionTag matches <function=NAME>, and the attribute form
// <function name="NAME"> that llama.cpp's Hermes 2 Pro tests show.
func recognizeFunctionTag(b []byte, p int, eof bool) rec {
	if r := recognizeFunctionAttr(b, p, eof); r.v != vNone {
		return r
	}
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
			if !validName(string(name)) {
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

const functionAttr = "<function name="

// recognizeFunctionAttr matches <function name="NAME"> (or 'NAME').
func recognizeFunctionAttr(b []byte, p int, eof bool) rec {
	return recognizeQuotedName(b, p, eof, functionAttr)
}

// recognizeQuotedName matches prefix"NAME"> (or 'NAME').
func recognizeQuotedName(b []byte, p int, eof bool, prefix string) rec {
	full, partial := hasPrefixOrPartial(b[p:], prefix)
	if partial && !eof {
		return rec{v: vNeed}
	}
	if !full {
		return rec{v: vNone}
	}
	i := p + len(prefix)
	if i == len(b) {
		if eof {
			return rec{v: vNone}
		}
		return rec{v: vNeed}
	}
	q := b[i]
	if q != '"' && q != '\'' {
		return rec{v: vNone}
	}
	i++
	start := i
	for ; i < len(b) && i-start < maxNameLen; i++ {
		if b[i] == q {
			break
		}
		if !isNameByte(b[i]) {
			return rec{v: vNone}
		}
	}
	if i+1 >= len(b) {
		if eof || i-start >= maxNameLen {
			return rec{v: vNone}
		}
		return rec{v: vNeed}
	}
	if b[i] != q || i == start || b[i+1] != '>' || !validName(string(b[start:i])) {
		return rec{v: vNone}
	}
	return rec{v: vBlock, end: i + 2, format: FormatFunctionTag, name: string(b[start:i])}
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
	return functionaryBody(b, p+len(functionaryTag), eof)
}

// maxFunctionaryGap bounds the blank space between ">>>name" and its
// JSON, so that waiting for the JSON costs a bounded rescan.
const maxFunctionaryGap = 256

// nameLine reads a name that ends its line at b[p:] (Functionary's
// headers): the name and the offset of the line break, or ok false and
// the verdict to return (vNeed while the name may still be arriving).
func nameLine(b []byte, p int, eof bool) (name string, nl int, ok bool, r rec) {
	i := p
	for ; i < len(b) && i-p < maxNameLen && b[i] != '\n'; i++ {
		if !isNameByte(b[i]) {
			return "", 0, false, rec{v: vNone}
		}
	}
	switch {
	case i == len(b) && !eof:
		return "", 0, false, rec{v: vNeed}
	case i == len(b) || b[i] != '\n' || i == p:
		return "", 0, false, rec{v: vNone}
	}
	return string(b[p:i]), i, true, rec{}
}

// literalAt reports whether b starts with lit; when it does not, r is
// the verdict to return: vNeed while b is a proper prefix of lit and more
// may come, else vNone.
func literalAt(b []byte, lit string, eof bool) (ok bool, r rec) {
	full, partial := hasPrefixOrPartial(b, lit)
	switch {
	case full:
		return true, rec{}
	case partial && !eof:
		return false, rec{v: vNeed}
	}
	return false, rec{v: vNone}
}

// functionaryBody reads "name\n{" at b[p] (after ">>>").
func functionaryBody(b []byte, p int, eof bool) rec {
	name, i, ok, r := nameLine(b, p, eof)
	if !ok {
		return r
	}
	if name == "all" { // >>>all introduces plain text: the marker is markup
		return rec{v: vMarkup, end: i + 1}
	}
	j := skipSpace(b[:min(len(b), i+1+maxFunctionaryGap)], i+1)
	if j-(i+1) >= maxFunctionaryGap {
		return rec{v: vNone}
	}
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

// recognizeFunctionaryStart reads the start of a message from
// Functionary v3.2, whose template ends the prompt with ">>>": the reply
// begins with "name\n{…}" or "all\n…" without the marker (llama.cpp
// tests/test-chat.cpp). Only with an allow-list, and only for a listed
// name, since "word\n{" could start any message.
func (s *Stream) recognizeFunctionaryStart(b []byte, eof bool) rec {
	if s.cfg.formats&FormatFunctionary == 0 {
		return rec{v: vNone}
	}
	// Functionary v2: "NAME\n<|content|>" (functionary2.go).
	if r := functionaryV2Body(b, 0, eof); r.v != vNone || s.cfg.allow == nil {
		return r
	}
	r := functionaryBody(b, 0, eof)
	if r.v == vBlock && !s.cfg.allowed(r.name) {
		return rec{v: vNone}
	}
	return r
}
