package safety

import "strings"

// awk's options decide where its program comes from: the first operand,
// -f/--file files, or (gawk) -e/--source texts, and gawk can also load
// libraries (-i, -l). Parsing them as awk does keeps `gawk -e
// 'BEGIN{system("id")}'` from passing as a bare read.

// awkLong are gawk's long options that take a value, in the order an
// abbreviation resolves (getopt accepts unambiguous prefixes).
var awkLong = [...]string{"--source", "--file", "--include", "--load", "--exec", "--assign", "--field-separator",
	"--dump-variables", "--pretty-print", "--profile", "--debug"}

func awk(c *call) {
	var progs, files, ops []word
	var libs, loads []word
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
		if w.dynamic || len(w.s) < 2 || w.s[0] != '-' {
			ops = append(ops, args[i:]...)
			break
		}
		if w.s == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		opt, val, hasVal := "", "", false
		if strings.HasPrefix(w.s, "--") {
			name, v, eq := strings.Cut(w.s, "=")
			for _, o := range awkLong {
				if strings.HasPrefix(o, name) {
					opt = o
					break
				}
			}
			if opt == "" {
				continue // a long option without a value
			}
			val, hasVal = v, eq
			// --dump-variables, --pretty-print, --profile, --debug take
			// an optional value, only with "=".
			if !hasVal && (opt == "--dump-variables" || opt == "--pretty-print" || opt == "--profile" || opt == "--debug") {
				continue
			}
		} else {
			// Short options cluster; a valued letter takes the rest or the
			// next word.
			for j := 1; j < len(w.s); j++ {
				if l := strings.IndexByte("efilEvFo", w.s[j]); l >= 0 {
					opt = [...]string{"--source", "--file", "--include", "--load", "--exec", "--assign", "--field-separator", "--pretty-print"}[l]
					val, hasVal = w.s[j+1:], j+1 < len(w.s)
					break
				}
			}
			if opt == "" || opt == "--pretty-print" {
				continue
			}
		}
		if !hasVal {
			v, ok := next()
			if !ok {
				break
			}
			val = v.s
			if v.dynamic {
				val = "$"
			}
		}
		v := word{s: val, dynamic: val == "$"}
		switch opt {
		case "--source":
			progs = append(progs, v)
		case "--file", "--exec":
			files = append(files, v)
		case "--include":
			libs = append(libs, v)
		case "--load":
			loads = append(loads, v)
		case "--dump-variables", "--pretty-print", "--profile", "--debug":
			c.path(v, OpWrite)
			c.concern(EffectWrites, SeverityMedium, false, "awk "+opt+" writes a file")
		}
		if opt == "--exec" {
			ops = append(ops, args[i+1:]...)
			break
		}
	}
	if len(progs) == 0 && len(files) == 0 && len(ops) > 0 {
		progs, ops = ops[:1], ops[1:]
	}
	for _, f := range files {
		c.path(f, OpRead)
		c.concern(EffectRunsProject, SeverityMedium, false, "awk runs a program file")
	}
	for _, l := range loads {
		c.concern(EffectExecutes, SeverityHigh, true, "awk -l loads a shared library ("+l.s+")")
	}
	inPlace := false
	for _, l := range libs {
		if strings.TrimSuffix(l.s, ".awk") == "inplace" {
			inPlace = true
			continue
		}
		c.path(l, OpRead)
		c.concern(EffectExecutes, SeverityMedium, false, "awk -i includes a program file")
	}
	for _, p := range progs {
		switch {
		case p.dynamic:
			c.unanalyzable("awk program known only at run time")
		default:
			if why := awkProgramRisk(p.s); why != "" {
				c.concern(EffectExecutes, SeverityHigh, true, "awk program "+why+", which can run commands, load code or write files")
			}
			if containsIdent(p.s, "ENVIRON") {
				programReadsEnvironment(c, "ENVIRON")
			}
		}
	}
	op := OpRead
	if inPlace {
		op = OpWrite
		c.concern(EffectWrites, SeverityMedium, false, "awk -i inplace edits files in place")
	}
	for _, w := range ops {
		if !strings.Contains(w.s, "=") {
			c.path(w, op)
		}
	}
}

// jqArgs returns jq's arguments without its two-value options (--arg
// NAME VALUE, --rawfile NAME FILE …), recording the files those read.
func jqArgs(c *call) []word {
	var out []word
	for i := 0; i < len(c.args); i++ {
		switch w := c.args[i]; w.s {
		case "--arg", "--argjson", "--rawfile", "--slurpfile":
			if (w.s == "--rawfile" || w.s == "--slurpfile") && i+2 < len(c.args) {
				c.path(c.args[i+2], OpRead)
			}
			i += 2
		default:
			out = append(out, w)
		}
	}
	return out
}
