package safety

import "strings"

// longLetters maps the long options that commonly mean a short one, for
// matching deny rules spelt with short options.
var longLetters = map[string]byte{"--recursive": 'r', "--force": 'f'}

// matchLoose is how deny and ask rules match, erring toward matching:
// options the rule does not name may stand between its words (`git -C .
// push`, `npm --silent publish`, `kubectl -n x delete` are still "git
// push", "npm publish", "kubectl delete"), and a rule's short-option
// cluster matches the same letters spelt apart or in another order (`rm
// -r -f`, `rm -fr`, `rm --recursive --force` are "rm -rf").
func (r rule) matchLoose(ws []word) bool {
	if len(r.tokens) == 0 || len(ws) == 0 || ws[0].dynamic || r.bad != nil {
		return false
	}
	if t := r.tokens[0]; ws[0].s != t && commandBase(ws[0].s) != strings.ToLower(t) {
		return false
	}
	letters := map[byte]bool{}
	longs := map[string]bool{}
	for _, w := range ws[1:] {
		switch {
		case w.dynamic || !strings.HasPrefix(w.s, "-") || w.s == "-" || w.s == "--":
		case strings.HasPrefix(w.s, "--"):
			name, _, _ := strings.Cut(w.s, "=")
			longs[name] = true
			if l, ok := longLetters[name]; ok {
				letters[l] = true
			}
		default:
			for i := 1; i < len(w.s); i++ {
				letters[lowerASCII(w.s[i])] = true // rm -R is rm -r; erring toward a match
			}
		}
	}
	pos := 1
	for _, t := range r.tokens[1:] {
		switch {
		case strings.HasPrefix(t, "--"):
			if !longs[t] {
				return false
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for i := 1; i < len(t); i++ {
				if !letters[lowerASCII(t[i])] {
					return false
				}
			}
		default:
			// The next operand equal to t, skipping options and the word
			// after an option (which may be its value).
			found := false
			for j := pos; j < len(ws); j++ {
				w := ws[j]
				if !w.dynamic && w.s == t {
					pos, found = j+1, true
					break
				}
				afterOption := j > 1 && strings.HasPrefix(ws[j-1].s, "-") && !strings.Contains(ws[j-1].s, "=")
				if !strings.HasPrefix(w.s, "-") && !afterOption {
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
