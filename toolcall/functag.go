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

const functionAttr = "<function name="

// recognizeFunctionAttr matches <function name="NAME"> (or 'NAME').
func recognizeFunctionAttr(b []byte, p int, eof bool) rec {
	full, partial := hasPrefixOrPartial(b[p:], functionAttr)
	if partial && !eof {
		return rec{v: vNeed}
	}
	if !full {
		return rec{v: vNone}
	}
	i := p + len(functionAttr)
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
	if b[i] != q || i == start || b[i+1] != '>' {
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
	if name == "" {
		return rec{v: vNone}
	}
	if name == "all" { // >>>all introduces plain text: the marker is markup
		return rec{v: vMarkup, end: i + 1}
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
