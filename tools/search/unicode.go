package search

import "strings"

// Perl classes as ripgrep reads them: Unicode-aware. Go's RE2 syntax makes
// \w, \d and \s ASCII-only, so a pattern is rewritten before parsing.
const (
	wordRunes  = `\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}`
	digitRunes = `\p{Nd}`
	spaceRunes = `\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
)

// unicodePerlClasses rewrites \w \d \s (and, outside brackets, \W \D \S)
// to their Unicode meanings. Escapes it does not know are copied as they
// are, \Q…\E literal text included; inside brackets, the negated forms
// stay ASCII because RE2 cannot nest a negated set in a class.
func unicodePerlClasses(pat string) string {
	if !strings.Contains(pat, `\`) {
		return pat
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat):
			e := pat[i+1]
			i++
			if e == 'Q' {
				end := strings.Index(pat[i+1:], `\E`)
				if end < 0 {
					b.WriteString(pat[i-1:])
					return b.String()
				}
				b.WriteString(pat[i-1 : i+1+end+2])
				i += end + 2
				continue
			}
			var set string
			neg := false
			switch e {
			case 'w', 'W':
				set, neg = wordRunes, e == 'W'
			case 'd', 'D':
				set, neg = digitRunes, e == 'D'
			case 's', 'S':
				set, neg = spaceRunes, e == 'S'
			}
			switch {
			case set == "" || (neg && inClass):
				b.WriteByte('\\')
				b.WriteByte(e)
			case inClass:
				b.WriteString(set)
			case neg:
				b.WriteString("[^" + set + "]")
			default:
				b.WriteString("[" + set + "]")
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' first in a class (after an optional '^') is literal.
			if i+1 < len(pat) && pat[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pat) && pat[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && strings.HasPrefix(pat[i:], "[:"):
			// A POSIX class such as [:alpha:] inside brackets.
			end := strings.Index(pat[i:], ":]")
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(pat[i : i+end+2])
			i += end + 1
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
