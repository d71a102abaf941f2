package toolcall

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// One name rule for every family: a tool name is Unicode letters, marks
// and digits plus '_', '-', '.' and ':' (MCP servers' "server:tool",
// dotted namespaces), at most maxNameLen bytes. Byte scanners take any
// byte of a multi-byte rune (isNameByte) and check the name whole here,
// so a rune split across chunks is never judged half-read.

var nameASCII = func() (t [128]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '-' || c == '.' || c == ':'
	}
	return t
}()

// validName reports whether s is a tool name under the rule above.
func validName(s string) bool {
	if s == "" || len(s) > maxNameLen {
		return false
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !nameASCII[c] {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
			return false
		}
		i += n
	}
	return true
}

// nameReason says why a tool name was refused.
func nameReason(name string) string {
	return "the tool name " + quoteName(name) + " is not a name: use letters, digits and _ - . : only"
}

func quoteName(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.ToValidUTF8(`"`+s+`"`, "?")
}

// A placeholder tool name marks a call block as a template copied from
// instructions ("tool_name", "FUNCTION_NAME", "your_tool"), not a call.
// A name on the allow-list is never a placeholder.

// placeholderNames, folded (lower case, without '_', '-', ' ' and '.').
var placeholderNames = map[string]bool{
	"toolname": true, "functionname": true, "yourtool": true, "yourtoolname": true,
	"yourfunction": true, "yourfunctionname": true, "nameofthetool": true, "nameoftool": true,
	"toolnamehere": true, "functionnamehere": true, "mytool": true, "exampletool": true,
	"examplefunction": true, "tool": true, "function": true, "name": true, "funcname": true,
}

// placeholderCall returns why the block's calls are a template, or "".
func (s *Stream) placeholderCall(calls []Call) string {
	for _, c := range calls {
		if s.cfg.allow != nil && s.cfg.allow[c.Name] {
			continue
		}
		if placeholderName(c.Name) {
			return "its tool name " + c.Name + " is a placeholder"
		}
	}
	return ""
}

func placeholderName(name string) bool {
	if len(name) < 4 || len(name) > 24 {
		return false
	}
	// Every placeholder starts with one of "efmnty" and ends with one of
	// "eln": real names are turned away before any folding.
	switch lower(name[0]) {
	case 'e', 'f', 'm', 'n', 't', 'y':
	default:
		return false
	}
	switch lower(name[len(name)-1]) {
	case 'e', 'l', 'n':
	default:
		return false
	}
	var buf [24]byte
	f := buf[:0]
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '_', '-', ' ', '.':
		default:
			f = append(f, lower(c))
		}
	}
	return placeholderNames[string(f)] // no allocation: the key conversion is not kept
}
