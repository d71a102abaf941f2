package safety

import (
	"strings"
	"sync"
)

// An allow rule such as "go test" or "less", or the read-only
// auto-approval, is a promise about a command its author knows; an option
// the author never saw can turn it into something else (`make test
// --eval='$(shell …)'` runs code, `date -f .env` prints a secret, `go test
// -args -test.cpuprofile=~/.bashrc` overwrites a start-up file). For the
// commands below the analyser therefore knows every option: which take a
// value and what the value is. A rule covers such a command only when each
// option is known to be harmless or the rule names it; anything else is
// listed in Command.Unvetted and needs a human.

// optKind says what an option is, and what its value is when it takes one.
type optKind uint8

const (
	optFlag    optKind = iota // no value, harmless
	optText                   // a harmless value: a number, a pattern, a name, a format
	optRead                   // the value is a file the command reads
	optWrite                  // the value is a file the command writes
	optDir                    // the value is a directory the command reads or works in
	optProgram                // the value names a program the command runs
	optCode                   // the value is code the command runs
	optConfig                 // the value is a configuration file, which can change what runs
	optUnsafe                 // no value, but the option runs code, writes or changes the system
	optGlob                   // the value is a glob of the files read, at any depth (rg -g)
)

// takesValue reports whether options of kind k consume a value.
func (k optKind) takesValue() bool { return k != optFlag && k != optUnsafe }

// optionModel is the option grammar of one command (or sub-command).
// The tables are written as groups (model's arguments) and turned into
// lookup maps on first use (ready), so that a program linking the
// analyser pays nothing for them until it analyses a command.
type optionModel struct {
	groups []optGroup
	// derive adds to the tables once they are built from groups.
	derive func(m *optionModel)
	once   sync.Once

	opts map[string]optKind // by spelling: "-n", "--lines"; built by ready
	// goStyle: options are Go flag-package style, one or two dashes before
	// a whole name (-run, --count=3), never clustered.
	goStyle bool
	// numeric: -NUM is accepted (head -20, tail -5).
	numeric bool
	// stop is an option after which every word belongs to another program
	// (go test -args): those words are judged by passOn, or unvetted.
	stop   string
	passOn *optionModel
	// operandEnds: the first operand ends the options; the words after it
	// are arguments of the program it names (go run main.go -v).
	operandEnds bool
	// endOfOptions: "--end-of-options" ends the options as "--" does,
	// without making the words after it paths (git).
	endOfOptions bool
	// why explains the unsafe options for concerns, by spelling.
	why map[string]string
	// optional lists the short options whose value, when given, is the
	// rest of their word and never the next one (git log -M50%, -U3).
	optional map[string]bool
	risky    bool // see computeRisky
}

// model builds an optionModel from groups of options of one kind each.
func model(groups ...optGroup) *optionModel {
	return &optionModel{groups: groups}
}

// ready builds m's lookup tables from its groups, once, and returns m.
// Every method that reads opts, optional or risky calls it first.
func (m *optionModel) ready() *optionModel {
	m.once.Do(func() {
		n := 0
		for _, g := range m.groups {
			n += len(g.names)
		}
		m.opts = make(map[string]optKind, n)
		for _, g := range m.groups {
			for _, n := range g.names {
				m.opts[n] = g.kind
				if g.optional {
					if m.optional == nil {
						m.optional = map[string]bool{}
					}
					m.optional[n] = true
				}
			}
		}
		if m.derive != nil {
			m.derive(m)
		}
		m.computeRisky()
	})
	return m
}

// optGroup is a set of option spellings sharing one kind.
type optGroup struct {
	kind     optKind
	names    []string
	optional bool // a harmless value may be attached: -U3, --abbrev=7
}

func flags(names ...string) optGroup     { return optGroup{kind: optFlag, names: names} }
func texts(names ...string) optGroup     { return optGroup{kind: optText, names: names} }
func reads(names ...string) optGroup     { return optGroup{kind: optRead, names: names} }
func writes(names ...string) optGroup    { return optGroup{kind: optWrite, names: names} }
func dirs(names ...string) optGroup      { return optGroup{kind: optDir, names: names} }
func programs(names ...string) optGroup  { return optGroup{kind: optProgram, names: names} }
func code(names ...string) optGroup      { return optGroup{kind: optCode, names: names} }
func configs(names ...string) optGroup   { return optGroup{kind: optConfig, names: names} }
func dangerous(names ...string) optGroup { return optGroup{kind: optUnsafe, names: names} }
func globs(names ...string) optGroup     { return optGroup{kind: optGlob, names: names} }

// optionalValue is a group of options with an optional harmless value,
// attached to a short option (-M50%) or after "=" to a long one.
func optionalValue(names ...string) optGroup {
	return optGroup{kind: optFlag, names: names, optional: true}
}

// optionUse is one option found in a command's words.
type optionUse struct {
	text  string // the option as written, value included when attached
	name  string // its spelling in the model, "" when unknown
	kind  optKind
	value word
	has   bool // value present
	// runtime: a word known only at run time that may turn out to be an
	// option (a file named "--pre=./x.sh" listed by git ls-files).
	runtime bool
	at, end int // the words of args it occupies: args[at:end]
}

// computeRisky sets m.risky: whether some option of m does more than
// change output: reads or writes a named file, runs a program or code, or
// changes the system. Only then can a run-time word that turns out to be
// an option do harm. Called whenever the table changes, since the answer
// is needed for every run-time word.
func (m *optionModel) computeRisky() {
	m.risky = false
	for _, k := range m.opts {
		if k != optFlag && k != optText {
			m.risky = true
			return
		}
	}
}

// literalOption returns the option a run-time word certainly is: its
// source text spells a long (or Go-style) option name literally before
// "=" (`--author="$(git config user.name)"`), and the model knows that
// option to take a harmless value whatever it turns out to be. Any other
// run-time word may still be any option.
func (m *optionModel) literalOption(w word) (string, bool) {
	m.ready()
	if !w.dynamic {
		return "", false
	}
	name, _, eq := strings.Cut(w.s, "=")
	if !eq || len(name) < 2 || name[0] != '-' || !m.goStyle && !strings.HasPrefix(name, "--") {
		return "", false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !(c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", false // quoted, escaped or expanded: not literal
		}
	}
	if m.goStyle {
		name = "-" + strings.TrimLeft(name, "-")
	}
	k, known := m.opts[name]
	return name, known && k == optText
}

// mayBeOption reports whether a run-time word can start with "-": its
// value is unknown, or one of the patterns it is drawn from can match a
// name that does (`*.go` matches "--pre=x.go"; `src/*.go` and find's
// "./…" cannot).
func mayBeOption(w word) bool {
	if w.files == nil {
		return true
	}
	for _, f := range w.files {
		if f == "" || f == "." || strings.IndexByte("*?[-", f[0]) >= 0 {
			return true
		}
	}
	return false
}

// scan hands each option in args to use, stopping at "--", and returns
// the words after the model's stop option. Words that are not options
// are skipped: the command's classifier judges its operands. (A callback
// rather than a slice: scan runs for every modelled command.)
func (m *optionModel) scan(args []word, found func(optionUse)) (rest []word) {
	m.ready()
	for i := 0; i < len(args); i++ {
		w, start := args[i], i
		use := func(u optionUse) {
			u.at, u.end = start, i+1
			found(u)
		}
		if name, ok := m.literalOption(w); ok {
			use(optionUse{text: w.s, name: name, kind: optText, has: true, value: word{s: w.s[strings.IndexByte(w.s, '=')+1:], dynamic: true}})
			continue
		}
		if w.dynamic && !w.pipe && m.risky && mayBeOption(w) {
			use(optionUse{text: w.s, runtime: true})
			continue
		}
		if w.dynamic || len(w.s) < 2 || w.s[0] != '-' {
			if m.operandEnds {
				return nil
			}
			continue
		}
		if w.s == "--" || m.endOfOptions && w.s == "--end-of-options" {
			return nil
		}
		if m.stop != "" && w.s == m.stop {
			return args[i+1:]
		}
		if m.numeric && isDigits(w.s[1:]) {
			use(optionUse{text: w.s, name: "-NUM", kind: optText})
			continue
		}
		if m.goStyle || strings.HasPrefix(w.s, "--") {
			name, val, eq := strings.Cut(w.s, "=")
			if m.goStyle {
				name = "-" + strings.TrimLeft(name, "-")
			}
			u := optionUse{text: w.s}
			if k, ok := m.opts[name]; ok {
				u.name, u.kind = name, k
				switch {
				case eq:
					u.value, u.has = word{s: val, dynamic: w.dynamic}, true
				case k.takesValue() && i+1 < len(args):
					i++
					u.value, u.has = args[i], true
					u.text += " " + args[i].s
				}
			}
			use(u)
			continue
		}
		// A cluster of short options: -la, -n5, -C2.
		for j := 1; j < len(w.s); j++ {
			name := "-" + w.s[j:j+1]
			k, ok := m.opts[name]
			if !ok {
				use(optionUse{text: w.s})
				break
			}
			u := optionUse{text: name, name: name, kind: k}
			if m.optional[name] && j+1 < len(w.s) {
				u.text, u.value, u.has = w.s, word{s: w.s[j+1:]}, true
				use(u)
				break
			}
			if k.takesValue() {
				if j+1 < len(w.s) {
					u.value, u.has = word{s: w.s[j+1:]}, true
				} else if i+1 < len(args) {
					i++
					u.value, u.has = args[i], true
				}
				u.text = w.s
				if u.has && j+1 == len(w.s) {
					u.text += " " + u.value.s
				}
				use(u)
				break
			}
			use(u)
		}
	}
	return nil
}

// split separates args into options and operands as the command reads
// them, skipping option values, like opts does from a list of names.
func (m *optionModel) split(args []word) (flags []string, operands []word) {
	m.ready()
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.s == "--" && !w.dynamic {
			return flags, append(operands, args[i+1:]...)
		}
		if w.dynamic || len(w.s) < 2 || w.s[0] != '-' || m.numeric && isDigits(w.s[1:]) {
			if !w.dynamic && len(w.s) > 1 && w.s[0] == '-' {
				flags = append(flags, w.s)
			} else {
				operands = append(operands, w)
			}
			continue
		}
		flags = append(flags, w.s)
		if m.goStyle || strings.HasPrefix(w.s, "--") {
			name, _, eq := strings.Cut(w.s, "=")
			if m.goStyle {
				name = "-" + strings.TrimLeft(name, "-")
			}
			if k, ok := m.opts[name]; ok && k.takesValue() && !eq {
				i++
			}
			continue
		}
		for j := 1; j < len(w.s); j++ {
			k, ok := m.opts["-"+w.s[j:j+1]]
			if !ok || m.optional["-"+w.s[j:j+1]] {
				break // unknown, or the rest of the word is its value
			}
			if k.takesValue() {
				if j+1 == len(w.s) {
					i++ // -n 5: the value is the next word
				}
				break
			}
		}
	}
	return flags, operands
}

// vet judges the options of c against m: values are recorded as the paths
// they are, programs and code raise the severity, and every option that
// is unknown or not harmless is listed in Unvetted.
func (m *optionModel) vet(c *call, args []word) {
	off := 1 + len(c.args) - len(args) // args is a suffix of c's words
	rest := m.scan(args, func(u optionUse) {
		m.judge(c, u)
		if u.name != "" {
			c.optionAt(off+u.at, u.end-u.at)
		}
	})
	if rest != nil {
		if m.passOn == nil {
			for _, w := range rest {
				c.unvetted(w.s, "is passed on to another program")
			}
			return
		}
		m.passOn.vet(c, rest)
	}
}

// judge applies one option use to c.
func (m *optionModel) judge(c *call, u optionUse) {
	switch {
	case u.runtime:
		end := "--"
		if m.endOfOptions {
			end = "--end-of-options"
		}
		c.unvetted(u.text, "is known only at run time and may turn out to be an option of "+c.base+"; put "+end+" before it")
		return
	case u.name == "":
		c.unvetted(u.text, "is not an option "+c.base+" is known to take harmlessly")
		return
	}
	switch u.kind {
	case optFlag, optText:
	case optRead, optDir:
		if u.has {
			c.path(u.value, OpRead)
		}
	case optGlob:
		// -g '.env' reads .env wherever it is; '!x' excludes.
		if u.has && !u.value.dynamic && !strings.HasPrefix(u.value.s, "!") {
			c.path(word{s: "**/" + strings.TrimPrefix(u.value.s, "/"), glob: true}, OpRead)
		}
	case optWrite:
		if !u.has {
			return
		}
		c.path(u.value, OpWrite)
		if !u.value.dynamic && outsideWorkspace(c.a.resolve(u.value.s)) {
			c.concern(EffectWrites, SeverityHigh, true, c.base+" "+u.name+" writes outside the workspace ("+u.value.s+")")
		} else {
			c.concern(EffectWrites, SeverityMedium, false, c.base+" "+u.name+" writes "+u.value.s)
		}
	case optConfig:
		if u.has {
			c.path(u.value, OpRead)
		}
		c.unvetted(u.text, "reads a configuration file, which can change what "+c.base+" runs")
	case optProgram:
		c.concern(EffectExecutes, SeverityHigh, true, c.base+" "+u.name+" runs another program ("+u.value.s+")")
		if u.has {
			c.script(Opaque, u.value)
		}
	case optCode:
		if m == pytestModel && u.has && !u.value.dynamic && strings.HasPrefix(u.value.s, "no:") {
			return // pytest -p no:NAME disables a plugin: it loads nothing
		}
		c.concern(EffectExecutes, SeverityMedium, false, c.base+" "+u.name+" runs inline code")
		c.unvetted(u.text, "runs inline code, which no rule for "+c.base+" alone covers")
	case optUnsafe:
		why := m.why[u.name]
		if why == "" {
			why = "runs code, writes files or changes the system"
		}
		c.concern(EffectExecutes, SeverityHigh, false, c.base+" "+u.name+" "+why)
		c.unvetted(u.text, why)
	}
}

// outsideWorkspace reports a path that, as written, can only lie outside
// the workspace: absolute, in a home directory, or above the start.
func outsideWorkspace(p string) bool {
	c := cleanPath(p)
	return strings.HasPrefix(c, "/") && !harmlessDevice(c) || strings.HasPrefix(c, "~") || c == ".." || strings.HasPrefix(c, "../")
}

// optionAt records that words[j:j+n] of c are one option its model knows.
func (c *call) optionAt(j, n int) {
	cmd := &c.a.res.Commands[c.idx]
	if j < 0 || j >= len(cmd.words) || n > 2 {
		return
	}
	if cmd.spans == nil {
		cmd.spans = make([]uint8, len(cmd.words))
	}
	cmd.spans[j] = uint8(n)
}

// unvetted records that option text keeps rules and read-only approval
// from covering c, unless a rule names it.
func (c *call) unvetted(text, why string) {
	cmd := &c.a.res.Commands[c.idx]
	cmd.Unvetted = append(cmd.Unvetted, UnvettedOption{Option: text, Reason: why})
}

// vetOptions applies the option model of c's command, if it has one.
// Commands without a model are covered by their rules as written: nothing
// is known about their options.
func vetOptions(c *call) {
	m, args := optionModelFor(c.base, c.args)
	if c.base == "git" {
		m, args = gitOptionModel(c) // it also vets git's global options
	}
	if m == nil {
		if _, inspect := readOnly[c.base]; inspect && !ownOptions[c.base] {
			// An inspection command whose options are not modelled is
			// read-only only when it has none.
			for _, w := range c.args {
				if !w.dynamic && len(w.s) > 1 && w.s[0] == '-' {
					c.unvetted(w.s, "is an option of "+c.base+", whose options are not modelled")
				}
			}
		}
		return
	}
	m.vet(c, args)
	vetBuildArgs(c, m, args)
}

// inertValue reports a value that cannot name a program or options:
// a number or a boolean word (V=1, DEBUG=true).
func inertValue(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "false", "yes", "no", "on", "off":
		return true
	}
	return isDigits(v)
}

// isName reports a shell or make variable name.
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// ownOptions lists the inspection commands whose options are judged
// elsewhere: shell builtins, whose options bash fixes and which cannot
// run a program or read a file through one, and the commands whose
// classifier reads their options itself (awk, dc, ip, env).
var ownOptions = map[string]bool{
	"test": true, "[": true, ":": true, "echo": true, "type": true, "history": true, "jobs": true, "wait": true,
	"shift": true, "getopts": true, "read": true, "unset": true, "set": true, "shopt": true, "return": true,
	"exit": true, "break": true, "continue": true, "let": true, "local": true, "declare": true, "typeset": true,
	"readonly": true, "export": true, "ulimit": true, "umask": true, "times": true, "dirs": true, "popd": true,
	"disown": true, "bg": true, "fg": true, "hash": true, "cd": true, "pushd": true, "mapfile": true,
	"readarray": true, "unalias": true, "help": true, "awk": true, "gawk": true, "mawk": true, "nawk": true,
	"dc": true, "expr": true, "ip": true, "ifconfig": true, "yes": true, "env": true,
}
