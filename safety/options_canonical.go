package safety

import (
	"slices"
	"strings"
)

// Parsers built on GNU getopt_long and git's parse-options accept any
// unambiguous prefix of a long option (`git reset --har` is `git reset
// --hard`, `tar --checkpoint-act=exec=id` is --checkpoint-action), and
// curl and zip do the same. The classifiers test options by their full
// names, so before a command is classified its abbreviated long options
// are spelt in full from longOptionNames. An abbreviation several options
// share is one the tool rejects; it is judged as all of them, so that the
// worst reading decides (`git push --forc` is --force-with-lease or
// --force-if-includes to git 2.39, which refuses it; a later git may not).
// Rules still see the command as written; option models resolve
// prefixes themselves (see optionModel.lookup).

// canonicalKey returns the key of c's command in longOptionNames and the
// index in c.args where that command's own options start.
func canonicalKey(c *call) (string, int) {
	switch c.base {
	case "tar", "gtar", "curl", "wget", "sort", "zip":
		if c.base == "gtar" {
			return "tar", 0
		}
		return c.base, 0
	case "git":
		for i := 0; i < len(c.args); i++ {
			w := c.args[i]
			if w.dynamic {
				return "", 0
			}
			if !strings.HasPrefix(w.s, "-") {
				return "git " + w.s, i + 1
			}
			if takesValue(w.s, gitValued) && !strings.Contains(w.s, "=") {
				i++
			}
		}
	}
	return "", 0
}

// canonicalArgs returns c.args with every abbreviated long option of a
// command in longOptionNames spelt in full (an ambiguous one as each of
// its readings, in a row), or nil when nothing is abbreviated. For a
// command in hatchOptionNames only abbreviations of its hatches are
// spelt in full, and complete is false: the list does not say what the
// other options are.
func canonicalArgs(c *call) (full []word, complete bool) {
	key, start := canonicalKey(c)
	names, complete := longOptionNames[key], true
	if names == nil && key != "" {
		names, complete = hatchOptionNames[key], false // git log, git diff, git show
	}
	if names == nil {
		key, start = hatchKey(c)
		names, complete = hatchOptionNames[key], false
	}
	if names == nil {
		return nil, false
	}
	var out []word
	done := 0 // c.args[:done] are in out
	for i := start; i < len(c.args); i++ {
		w := c.args[i]
		if w.s == "--" && !w.dynamic {
			break
		}
		if w.dynamic || !strings.HasPrefix(w.s, "--") || len(w.s) == 2 {
			continue
		}
		name, val, eq := strings.Cut(w.s[2:], "=")
		full := expandLong(names, name)
		if len(full) == 0 || len(full) == 1 && full[0] == name {
			continue
		}
		out = append(out, c.args[done:i]...)
		done = i + 1
		// An ambiguous abbreviation without "=" may take the next word
		// as its value under any of its readings: each reading gets it.
		var next []word
		if len(full) > 1 && !eq && i+1 < len(c.args) && !strings.HasPrefix(c.args[i+1].s, "-") {
			next, done = c.args[i+1:i+2], i+2
		}
		for _, f := range full {
			s := "--" + f
			if eq {
				s += "=" + val
			}
			out = append(out, word{s: s, quoted: w.quoted})
			out = append(out, next...)
		}
	}
	if out == nil {
		return nil, false
	}
	return append(out, c.args[done:]...), complete
}

// expandLong returns the long options of names that name abbreviates: the
// exact name when listed, else every name it is a prefix of.
func expandLong(names []string, name string) []string {
	if name == "" {
		return nil
	}
	i, found := slices.BinarySearch(names, name)
	if found {
		return names[i : i+1]
	}
	j := i
	for j < len(names) && strings.HasPrefix(names[j], name) {
		j++
	}
	return names[i:j]
}
