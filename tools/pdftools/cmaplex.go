package pdftools

import "strconv"

// A CMap's tokens, as far as reading its mappings needs: strings (hex or
// literal, as bytes), names, numbers, array brackets and operators.
// Dictionaries are skipped token by token; nothing is executed.
type cmapToken struct {
	kind int
	text string
}

const (
	tokString = iota
	tokName
	tokNumber
	tokArrayStart
	tokArrayEnd
	tokOperator
)

type cmapLexer struct {
	data []byte
	pos  int
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// next returns the next token; false at the end of the data.
func (l *cmapLexer) next() (cmapToken, bool) {
	d := l.data
	for l.pos < len(d) {
		c := d[l.pos]
		switch {
		case isPDFSpace(c):
			l.pos++
			continue
		case c == '%':
			for l.pos < len(d) && d[l.pos] != '\n' && d[l.pos] != '\r' {
				l.pos++
			}
			continue
		case c == '[':
			l.pos++
			return cmapToken{kind: tokArrayStart}, true
		case c == ']':
			l.pos++
			return cmapToken{kind: tokArrayEnd}, true
		case c == '<' && l.pos+1 < len(d) && d[l.pos+1] == '<', c == '>' && l.pos+1 < len(d) && d[l.pos+1] == '>':
			l.pos += 2 // dictionary brackets: their contents pass as operands
			continue
		case c == '<':
			return l.hex(), true
		case c == '(':
			return l.literal(), true
		case c == '/':
			l.pos++
			return cmapToken{kind: tokName, text: l.word()}, true
		case isPDFDelim(c):
			l.pos++ // a stray delimiter: skip it
			continue
		}
		w := l.word()
		if _, err := strconv.ParseFloat(w, 64); err == nil {
			return cmapToken{kind: tokNumber, text: w}, true
		}
		return cmapToken{kind: tokOperator, text: w}, true
	}
	return cmapToken{}, false
}

func (l *cmapLexer) word() string {
	start := l.pos
	for l.pos < len(l.data) && !isPDFSpace(l.data[l.pos]) && !isPDFDelim(l.data[l.pos]) {
		l.pos++
	}
	return string(l.data[start:l.pos])
}

func (l *cmapLexer) hex() cmapToken {
	l.pos++ // <
	var b []byte
	var hi int = -1
	for l.pos < len(l.data) && l.data[l.pos] != '>' {
		v := unhexDigit(l.data[l.pos])
		l.pos++
		if v < 0 {
			continue
		}
		if hi < 0 {
			hi = v
		} else {
			b = append(b, byte(hi<<4|v))
			hi = -1
		}
	}
	if hi >= 0 {
		b = append(b, byte(hi<<4))
	}
	l.pos++ // >
	return cmapToken{kind: tokString, text: string(b)}
}

func unhexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// literal reads a (string), with nesting and backslash escapes.
func (l *cmapLexer) literal() cmapToken {
	l.pos++ // (
	var b []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return cmapToken{kind: tokString, text: string(b)}
			}
		case '\\':
			if l.pos >= len(l.data) {
				break
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r', '\n':
				continue
			default:
				if '0' <= e && e <= '7' {
					v := int(e - '0')
					for i := 0; i < 2 && l.pos < len(l.data) && '0' <= l.data[l.pos] && l.data[l.pos] <= '7'; i++ {
						v = v*8 + int(l.data[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		b = append(b, c)
	}
	return cmapToken{kind: tokString, text: string(b)}
}
