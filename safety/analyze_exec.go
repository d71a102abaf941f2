package safety

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file turns simple commands into Command entries and hands each to
// its tier classifier (tiers*.go).

func (a *analyzer) callExpr(ce *syntax.CallExpr, parent int, heredoc *syntax.Redirect) {
	if len(ce.Args) == 0 {
		for _, as := range ce.Assigns {
			a.assign(as, parent, true)
		}
		return
	}
	ws := make([]word, 0, len(ce.Args))
	secrets := len(a.secrets)
	for _, w := range ce.Args {
		ws = a.appendFields(ws, w)
	}
	idx := a.run(ws, parent, heredoc)
	for _, name := range a.secrets[secrets:] {
		// echo $AWS_SECRET_ACCESS_KEY shows a secret as printenv would.
		a.concern(idx, EffectReads, SeverityMedium, false, "expands $"+name+", whose name says it holds a secret")
	}
	for _, as := range ce.Assigns {
		a.assign(as, idx, false)
	}
}

// emit appends a Command built from ws and returns its index.
func (a *analyzer) emit(ws []word, parent int, kind WrapperKind) int {
	c := Command{Name: ws[0].s, Parent: parent, Wrapper: kind, words: ws}
	if p := a.suffixOf(parent, ws); p != nil {
		// A wrapper's inner command is usually the tail of the wrapper's
		// words: share its Args instead of copying them at every level.
		c.Args = p.Args[len(p.Args)-len(ws)+1:]
	} else if len(ws) > 1 {
		c.Args = make([]string, 0, len(ws)-1)
		for _, w := range ws[1:] {
			c.Args = append(c.Args, w.s)
		}
	}
	for _, w := range ws {
		c.Dynamic = c.Dynamic || w.dynamic
	}
	a.res.Commands = append(a.res.Commands, c)
	idx := len(a.res.Commands) - 1
	if isFetcherOrDecoder(c) {
		a.fetchers++
	}
	if a.inFunc[c.Name] > 0 {
		a.concern(idx, EffectSystem, SeverityCritical, true, "function "+c.Name+" calls itself (fork bomb)")
	}
	for _, w := range ws {
		if w.ansiC {
			a.concern(idx, EffectHidden, SeverityNone, true, "uses an ANSI-C quoted word $'…', which can spell any byte")
			break
		}
	}
	for _, w := range ws {
		if w.extGlob {
			// zsh reads *(…) as a glob qualifier, and *(e:'cmd':) runs cmd;
			// PowerShell reads @(…) as an array: fail closed.
			a.concern(idx, EffectHidden, SeverityMedium, true, "uses an extended glob "+short(w.s)+", which zsh reads as a glob qualifier that can run commands")
			break
		}
	}
	return idx
}

// maxWrappers bounds wrappers inside wrappers (nohup nice timeout … cmd).
// Each level lists the remaining words again, so deeper chains would cost
// quadratic time; past the bound the line is unanalysable, not accepted.
const maxWrappers = 64

// suffixOf returns the parent command when ws is the tail of its words
// (same backing array), or nil.
func (a *analyzer) suffixOf(parent int, ws []word) *Command {
	if parent < 0 || parent >= len(a.res.Commands) || len(ws) < 2 {
		return nil
	}
	p := &a.res.Commands[parent]
	n := len(p.words)
	if len(ws) > n-1 || len(p.Args) != n-1 || &p.words[n-len(ws)] != &ws[0] {
		return nil
	}
	return p
}

// run judges the command whose words are ws and returns its index, or -1
// when ws is empty.
func (a *analyzer) run(ws []word, parent int, heredoc *syntax.Redirect) int {
	if len(ws) == 0 {
		return -1
	}
	if a.wrapDepth >= maxWrappers {
		a.unanalyzable(parent, fmt.Sprintf("more than %d wrappers nested in one command", maxWrappers))
		return -1
	}
	a.wrapDepth++
	defer func() { a.wrapDepth-- }()
	name := ws[0]
	switch {
	case name.dynamic:
		idx := a.emit(ws, parent, NotWrapper)
		a.unanalyzable(idx, "command name "+name.s+" is only known at run time")
		if worst := a.worstOf(name); worst != "" {
			// $(echo rm) -rf ~, x=$(tool rm); $x -rf ~
			a.worstReading(idx, worst+" "+a.worstJoin(ws[1:]))
		}
		if _, ok := a.vars[name.param]; ok && name.param != "" {
			// x=rm; $x -rf ~ : judge the value the script gave it.
			a.run(a.substitute(ws), idx, heredoc)
		} else if name.fallback != "" {
			// ${x:-rm} -rf ~ runs rm when x is unset: judge that reading.
			a.run(append(literalFields(name.fallback), ws[1:]...), idx, heredoc)
		} else if name.param == "SHELL" || name.param == "BASH" || name.param == "0" {
			// $SHELL -c '…' runs a shell: judge what it runs.
			a.run(append([]word{{s: "bash"}}, ws[1:]...), idx, heredoc)
		} else if name.mayVanish && len(ws) > 1 && !strings.HasPrefix(ws[1].s, "-") {
			// An empty expansion vanishes, making the next word the
			// command: judge that reading too.
			a.run(ws[1:], idx, heredoc)
		}
		return idx
	case name.glob:
		idx := a.emit(ws, parent, NotWrapper)
		a.unanalyzable(idx, "command name "+name.s+" is a glob pattern")
		return idx
	case !name.quoted && strings.Contains(name.s, "$"):
		// bash keeps $= $~ $^ $+ literally, zsh expands them ($=x runs
		// the words of x): no real command name holds an unquoted $.
		idx := a.emit(ws, parent, NotWrapper)
		a.unanalyzable(idx, "command name "+name.s+" holds a $ that bash keeps but zsh expands")
		return idx
	}
	idx := a.emit(ws, parent, NotWrapper)
	c := &call{a: a, idx: idx, name: name.s, base: commandBase(name.s), args: ws[1:], heredoc: heredoc}
	if !strings.Contains(name.s, "/") && strings.ToLower(name.s) != name.s {
		// LS is ls on a case-insensitive file system and an unknown
		// program elsewhere: judged as both, approved as neither.
		c.concern(EffectHidden, SeverityMedium, true, name.s+" is spelt in capitals: it runs "+c.base+" on a case-insensitive file system and an unknown program elsewhere")
	}
	if strings.Contains(name.s, "/") && !systemBinary(name.s) {
		if a.wasDownloaded(name) {
			c.concern(EffectExecutes, SeverityCritical, true, "runs "+name.s+", downloaded earlier in this command")
		}
		c.concern(EffectRunsProject, SeverityMedium, false, "runs the program at "+name.s+" rather than the system "+c.base)
	}
	if full, complete := canonicalArgs(c); full != nil {
		// Classifiers see abbreviated options spelt in full. Option
		// models index the words as written, so they see the full
		// spellings only when no abbreviation was ambiguous (which
		// keeps the count of words) and the spelling came from a full
		// option list (a model resolves other prefixes itself).
		written := c.args
		c.args = full
		classify(c)
		if len(full) != len(written) || !complete {
			c.args = written
		}
		vetOptions(c)
		if !complete && len(full) == len(written) {
			// A partial list spelt only the hatches: the model judges
			// them in full too, and an option it does not know as
			// written stays unvetted.
			c.args = full
			c.vetAgain()
		}
		c.args = written
	} else {
		classify(c)
		vetOptions(c)
	}
	return idx
}

// vetAgain applies c's option model once more, to other spellings of
// its options, keeping only the concerns and unvetted options the first
// pass did not find.
func (c *call) vetAgain() {
	res := &c.a.res
	n, cmd := len(res.Concerns), &res.Commands[c.idx]
	u := len(cmd.Unvetted)
	vetOptions(c)
	cmd = &res.Commands[c.idx]
	kept := res.Concerns[:n]
	for _, k := range res.Concerns[n:] {
		if !slices.ContainsFunc(kept, func(o Concern) bool { return o.Command == k.Command && o.Reason == k.Reason }) {
			kept = append(kept, k)
		}
	}
	res.Concerns = kept
	uk := cmd.Unvetted[:u]
	for _, o := range cmd.Unvetted[u:] {
		if !slices.ContainsFunc(uk, func(p UnvettedOption) bool { return p.Option == o.Option }) {
			uk = append(uk, o)
		}
	}
	cmd.Unvetted = uk
}

// substitute replaces words that are exactly a variable the script gave a
// literal value, splitting the value into words as bash does.
func (a *analyzer) substitute(ws []word) []word {
	var out []word
	for _, w := range ws {
		if v, ok := a.vars[w.param]; ok && w.param != "" {
			out = append(out, literalFields(v)...)
			continue
		}
		out = append(out, w)
	}
	return out
}

// commandBase is the name severity looks at: the base name, lower-cased
// on the extension-less part so that /usr/bin/RM on a case-insensitive
// file system is still rm.
func commandBase(name string) string {
	// zsh expands =cmd in command position to cmd's path (EQUALS).
	if len(name) > 1 && name[0] == '=' {
		name = name[1:]
	}
	b := path.Base(name)
	if strings.HasSuffix(name, "/") {
		return name
	}
	return strings.ToLower(b)
}

func systemBinary(name string) bool {
	switch path.Dir(name) {
	case "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin":
		return true
	}
	return false
}

// call is one command being classified.
type call struct {
	a       *analyzer
	idx     int
	name    string // as written
	base    string // what severity looks at
	args    []word
	heredoc *syntax.Redirect
}

// concern records a finding about c: its effect and severity (see
// analyzer.concern).
func (c *call) concern(e Effect, sev Severity, noAuto bool, reason string) {
	c.a.concern(c.idx, e, sev, noAuto, reason)
}

func (c *call) unanalyzable(reason string) { c.a.unanalyzable(c.idx, reason) }

func (c *call) path(p word, op Op) {
	if p.dynamic && p.files != nil {
		for _, f := range p.files {
			c.path(word{s: f, glob: strings.ContainsAny(f, "*?[")}, op)
		}
		return
	}
	if p.dynamic {
		switch op {
		case OpWrite:
			c.concern(EffectWrites, SeverityMedium, true, "writes to a path known only at run time ("+p.s+")")
		case OpRead:
			if !p.pipe {
				c.concern(EffectReads, SeverityMedium, true, "reads a path known only at run time ("+p.s+"), so its sensitivity cannot be checked")
			}
		}
		return
	}
	c.a.path(c.idx, p.s, op, false)
	if op == OpWrite {
		c.a.judgeWrite(c.idx, p.s, c.base)
	}
}

// setWrapper marks the command as a wrapper and runs inner beneath it.
func (c *call) wrap(kind WrapperKind, inner []word) {
	c.a.res.Commands[c.idx].Wrapper = kind
	if len(inner) > 0 {
		c.a.run(inner, c.idx, c.heredoc)
	}
}

// script analyses a literal script the command runs (bash -c, eval …).
func (c *call) script(kind WrapperKind, s word) {
	c.a.res.Commands[c.idx].Wrapper = kind
	switch {
	case s.dynamic && s.printed:
		c.a.analyzeScript(s.payload, c.idx, c.a.depth+1) // eval "$(printf 'x')"
	case s.dynamic && s.fetched:
		c.concern(EffectExecutes, SeverityCritical, true, "runs downloaded or decoded content that cannot be read before it runs: "+s.s)
	case s.dynamic:
		c.unanalyzable("runs a script known only at run time: " + s.s)
		c.a.worstReading(c.idx, c.a.worstOf(s))
	default:
		c.a.analyzeScript(s.s, c.idx, c.a.depth+1)
	}
}

// assign judges NAME=value, either for one command (env, idx ≥ 0) or for
// the shell itself (bare, or via export/declare).
//
// Assignments that reach programs' environments (a command's own, or an
// export) are judged by the allow-list (judgeAssignment); a bare shell
// assignment only matters for the dangerous names, which programs see if
// the variable is already exported.
func (a *analyzer) assign(as *syntax.Assign, idx int, shell bool) {
	exported := shell && idx >= 0 && idx < len(a.res.Commands) && a.exports(idx)
	if as.Value != nil {
		a.scanWord(as.Value)
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				a.arith(e.Index, idx)
			}
			a.scanWord(e.Value)
		}
	}
	if as.Index != nil {
		a.arith(as.Index, idx)
	}
	if as.Name == nil {
		return
	}
	if a.intAttr && as.Value != nil {
		// After declare -i, assigning to an integer variable evaluates
		// the value as arithmetic (declare -i x='a[$(id)]' runs id).
		if w := a.join(as.Value.Parts, a.src(as.Value)); w.dynamic || subscriptRuns(w.s) {
			a.unanalyzable(idx, "assigns "+short(a.src(as.Value))+" where an integer variable (declare -i) evaluates it as arithmetic")
		}
	}
	name := as.Name.Value
	if shell && as.Value != nil && as.Index == nil && !as.Append {
		if w := a.join(as.Value.Parts, a.src(as.Value)); !w.dynamic {
			if a.vars == nil {
				a.vars = make(map[string]string)
			}
			a.vars[name] = w.s
			delete(a.worstVars, name)
		} else {
			delete(a.vars, name)
			a.setWorstVar(name, w)
		}
	}
	var value word
	if as.Value != nil {
		value = a.join(as.Value.Parts, a.src(as.Value))
	}
	if !shell && idx >= 0 && idx < len(a.res.Commands) {
		as := name + "=" + value.s
		if value.dynamic {
			as = name + "=\x00" // equal to no rule's assignment
		}
		cmd := &a.res.Commands[idx]
		cmd.assigns = append(cmd.assigns, as)
	}
	if !shell || exported {
		a.judgeAssignment(idx, name, value)
		return
	}
	if why, ok := dangerousEnv(name); ok && !harmlessAssignment(name, value) {
		a.concern(idx, EffectExecutes, SeverityHigh, true, "sets "+name+", which "+why)
	}
}

// redirect classifies a redirection that belongs to command idx.
func (a *analyzer) redirect(r *syntax.Redirect, idx int) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			a.scanWord(r.Hdoc) // unquoted bodies expand $(…); quoted ones are one literal
		}
		a.scanWord(r.Word)
		return
	case syntax.WordHdoc:
		a.scanWord(r.Word)
		return
	}
	if r.Word == nil {
		a.unanalyzable(idx, "redirect without a target")
		return
	}
	if len(r.Word.Parts) == 1 {
		if ps, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
			// > >(cmd): output goes to a command, walked like any other.
			a.substitution(ps, ps.Stmts)
			return
		}
	}
	text := a.src(r.Word)
	fs := a.fields(r.Word)
	if len(fs) != 1 {
		a.unanalyzable(idx, "redirect target "+short(text)+" expands to several words")
		return
	}
	t := fs[0]
	switch r.Op {
	case syntax.DplIn, syntax.DplOut:
		if !t.dynamic && (t.s == "-" || isDigits(strings.TrimSuffix(t.s, "-"))) {
			return // fd duplication or close
		}
	}
	if t.dynamic || t.glob {
		a.unanalyzable(idx, "redirects to a target known only at run time ("+short(t.s)+")")
		return
	}
	if r.Op == syntax.RdrIn || r.Op == syntax.DplIn {
		a.path(idx, t.s, OpRead, true)
		a.judgeRead(idx, t.s)
		return
	}
	if harmlessDevice(t.s) {
		return
	}
	a.path(idx, t.s, OpWrite, true)
	a.judgeWrite(idx, t.s, "")
	a.concern(idx, EffectWrites, SeverityMedium, true, "redirects output into "+t.s)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") && isDigits(p[len("/dev/fd/"):])
}
