package safety

import "strings"

// sed is programmable: its scripts can run commands (e, s///e), write
// files (w, W, s///w) and read them (r, R). This file parses sed's
// command line as GNU getopt does and its scripts as GNU sed does, so that
// `sed --expression='1e id'`, `sed -ne '1e id'` and `sed -E 's/x/id/e'`
// are seen, not just `sed -e …`.

// sedLongOpts are GNU sed's long options that matter here, in the order an
// abbreviation is resolved (getopt accepts any unambiguous prefix; the
// dangerous reading wins when a prefix is ambiguous, since sed would then
// refuse to run at all).
var sedLongOpts = [...]string{"--expression", "--file", "--in-place", "--line-length"}

func sed(c *call) {
	var scripts, files []word
	explicit, inPlace := false, false
	script := func(w word) {
		explicit = true
		scripts = append(scripts, w)
	}
	scriptFile := func(w word) {
		explicit = true
		c.path(w, OpRead)
		c.concern(EffectRunsProject, SeverityMedium, false, "sed runs a script file")
	}
	args := c.args
	for i := 0; i < len(args); i++ {
		w := args[i]
		next := func() (word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return word{}, false
		}
		switch {
		case w.dynamic || len(w.s) < 2 || w.s[0] != '-':
			files = append(files, w)
		case w.s == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(w.s, "--"):
			name, val, hasVal := strings.Cut(w.s, "=")
			long := ""
			for _, o := range sedLongOpts {
				if strings.HasPrefix(o, name) && len(name) > 2 {
					long = o
					break
				}
			}
			value := func() (word, bool) {
				if hasVal {
					return word{s: val}, true
				}
				return next()
			}
			switch long {
			case "--expression":
				if v, ok := value(); ok {
					script(v)
				}
			case "--file":
				if v, ok := value(); ok {
					scriptFile(v)
				}
			case "--in-place":
				inPlace = true
			case "--line-length":
				value()
			}
		default:
			// Clustered short options: -ne SCRIPT, -eSCRIPT, -i.bak, -nf FILE.
		short:
			for j := 1; j < len(w.s); j++ {
				rest := w.s[j+1:]
				value := func() (word, bool) {
					if rest != "" {
						return word{s: rest}, true
					}
					return next()
				}
				switch w.s[j] {
				case 'e':
					if v, ok := value(); ok {
						script(v)
					}
					break short
				case 'f':
					if v, ok := value(); ok {
						scriptFile(v)
					}
					break short
				case 'l':
					value()
					break short
				case 'i':
					inPlace = true // the rest is the backup suffix
					break short
				}
			}
		}
	}
	if !explicit && len(files) > 0 {
		scripts, files = files[:1], files[1:]
	}
	for _, s := range scripts {
		if s.dynamic {
			c.unanalyzable("sed script known only at run time")
			continue
		}
		runs, reads, writes := sedScript(s.s)
		if runs || len(writes) > 0 {
			c.concern(EffectExecutes, SeverityHigh, true, "sed script can write files or run commands (e/w): "+short(s.s))
		}
		for _, r := range reads {
			c.path(word{s: r}, OpRead)
		}
		for _, wr := range writes {
			c.path(word{s: wr}, OpWrite)
		}
	}
	op := OpRead
	if inPlace {
		op = OpWrite
		c.concern(EffectWrites, SeverityMedium, false, "sed -i edits files in place")
	}
	for _, f := range files {
		c.path(f, op)
	}
}

// sedScript walks a GNU sed script command by command. runs is true when
// a command can run a program (e, s///e) or when the script cannot be
// parsed: a misreading must fail closed. reads and writes are the files
// named by r/R and w/W/s///w.
func sedScript(s string) (runs bool, reads, writes []string) {
	i := 0
	// toEOL returns the rest of the line (GNU: file names and text run to
	// the newline) and moves past it.
	toEOL := func() string {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i
		}
		v := strings.TrimLeft(s[i:i+j], " \t")
		i += j
		return v
	}
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', ';', '{', '}':
			i++
			continue
		case '#':
			toEOL()
			continue
		}
		var ok bool
		if i, ok = sedAddress(s, i); !ok {
			return true, reads, writes
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			break
		}
		cmd := s[i]
		i++
		switch cmd {
		case '{', '}', ';', '\n':
			i--
		case 'e':
			return true, reads, writes
		case 'w', 'W':
			writes = append(writes, toEOL())
		case 'r', 'R':
			reads = append(reads, toEOL())
		case 'a', 'i', 'c':
			// Text runs to an unescaped newline.
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case ':', 'b', 't', 'T', 'v':
			for i < len(s) && s[i] != '\n' && s[i] != ';' {
				i++
			}
		case 'l', 'L', 'q', 'Q':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return true, reads, writes
			}
			d := s[i]
			i++
			if i, ok = sedPart(s, i, d, cmd == 's'); !ok {
				return true, reads, writes
			}
			if i, ok = sedPart(s, i, d, false); !ok {
				return true, reads, writes
			}
			if cmd == 'y' {
				continue
			}
		flags:
			for i < len(s) {
				switch f := s[i]; {
				case f == 'e':
					return true, reads, writes
				case f == 'w':
					i++
					writes = append(writes, toEOL())
				case strings.IndexByte("gpiImM0123456789 \t", f) >= 0:
					i++
				case f == ';' || f == '\n' || f == '}' || f == '#':
					break flags
				default:
					return true, reads, writes
				}
			}
		case '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z':
		default:
			return true, reads, writes // not a sed command: cannot be judged
		}
	}
	return false, reads, writes
}

// sedAddress skips the addresses before a command: a number, $,
// first~step, /regex/ or \cregexc with I/M flags, and a second address
// after a comma (which may also be +N or ~N).
func sedAddress(s string, i int) (int, bool) {
	for k := 0; k < 2; k++ {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return i, true
		}
		switch c := s[i]; {
		case c >= '0' && c <= '9' || c == '$' || k == 1 && (c == '+' || c == '~'):
			i++
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case c == '/' || c == '\\':
			d := byte('/')
			i++
			if c == '\\' {
				if i >= len(s) || s[i] == '\n' {
					return i, false
				}
				d = s[i]
				i++
			}
			var ok bool
			if i, ok = sedPart(s, i, d, true); !ok {
				return i, false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if k == 0 && i < len(s) && s[i] == ',' {
			i++
			continue
		}
		break
	}
	return i, true
}

// sedPart skips a regex or replacement ending at the unescaped delimiter
// d and returns the index after it. In a regex a bracket expression may
// hold the delimiter literally (GNU sed reads `s/[/]/x/` as one regex).
func sedPart(s string, i int, d byte, regex bool) (int, bool) {
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\':
			i += 2
		case c == d:
			return i + 1, true
		case regex && c == '[':
			j := i + 1
			if j < len(s) && s[j] == '^' {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++
			}
			end := strings.IndexByte(s[j:], ']')
			if end < 0 {
				return i, false
			}
			i = j + end + 1
		default:
			i++
		}
	}
	return i, false
}
