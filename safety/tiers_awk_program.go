package safety

// awkProgramRisk scans an awk program for what can run commands, load
// code or write files: system(), getline (from a command or a file), a
// pipe to or from a command, output redirected by print or printf, and
// gawk's @include/@load and indirect calls. String and regular-expression
// literals are skipped, and `>` counts as a redirection only inside a
// print or printf statement outside parentheses, as awk's grammar reads
// it: `$3 > 100 {print}` compares. It returns what it found, or "".
func awkProgramRisk(prog string) string {
	inPrint, depth := false, 0
	prevSignificant := byte(0) // last non-blank byte, to tell /regex/ from division
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		switch {
		case c == '"':
			i = skipQuoted(prog, i, '"')
		case c == '/' && regexMayStart(prevSignificant):
			i = skipQuoted(prog, i, '/')
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
		case c == '@':
			return "uses gawk's @ (include, load or an indirect call)"
		case c == '|':
			if i+1 < len(prog) && prog[i+1] == '|' {
				i++
				break
			}
			return "pipes to or from a command"
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ';' || c == '\n' || c == '}' || c == '{':
			inPrint, depth = false, 0
		case c == '>' && inPrint && depth == 0:
			return "redirects print output to a file"
		case isAwkIdentStart(c):
			j := i
			for j < len(prog) && isAwkIdent(prog[j]) {
				j++
			}
			switch prog[i:j] {
			case "system":
				return "calls system()"
			case "getline":
				return "reads with getline, from a file or a command"
			case "print", "printf":
				inPrint, depth = true, 0
			}
			i = j - 1
		}
		if c != ' ' && c != '\t' && i < len(prog) {
			prevSignificant = prog[i] // an unterminated literal ends the loop
		}
	}
	return ""
}

// skipQuoted returns the index of the delimiter closing the literal that
// starts at i, honouring backslash escapes (or the end of s).
func skipQuoted(s string, i int, delim byte) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case delim:
			return j
		}
	}
	return len(s)
}

// regexMayStart reports whether a / after prev opens a regular expression
// rather than dividing: at the start, or after an operator or opening.
func regexMayStart(prev byte) bool {
	switch prev {
	case 0, '(', ',', '{', '}', ';', '!', '~', '&', '|', '=', '\n', '<', '>', '?', ':', '+', '-', '*':
		return true
	}
	return false
}

func isAwkIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAwkIdent(c byte) bool      { return isAwkIdentStart(c) || c >= '0' && c <= '9' }
