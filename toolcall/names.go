package toolcall

import "strings"

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
	f := strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ', '.':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, name)
	return placeholderNames[f]
}
