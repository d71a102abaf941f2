package safety

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// When a command substitution's output cannot be reconstructed
// (`eval "$(echo rm -rf ~)"` with the home directory in it, `$(tool rm)
// -rf ~`, `sh -c "$(cmd)"`), the analysis is unanalysable, and it is also
// judged as the most dangerous thing it could be: each substituted
// command printing its own arguments, which is what echo does and how
// every obfuscation of this kind hides its command. When that reading is
// critical, so is the line; otherwise it stays high and unanalysable.

// worstText returns the text a word holding command or process
// substitutions expands to when every substituted command prints its
// arguments (see printedWords), with the values the script gave its
// variables and the words ${x:-word} falls back to; "" when the word has
// none of these.
func (a *analyzer) worstText(parts []syntax.WordPart) string {
	var b strings.Builder
	found := false
	var walk func([]syntax.WordPart)
	walk = func(parts []syntax.WordPart) {
		for _, p := range parts {
			if b.Len() > maxWorstText {
				return
			}
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				v := p.Value
				if p.Dollar {
					v, _, _ = expand.Format(nil, v, nil)
				}
				b.WriteString(v)
			case *syntax.DblQuoted:
				walk(p.Parts)
			case *syntax.ParamExp:
				if isHome(p) {
					b.WriteString("~")
					continue
				}
				v, known := a.paramValue(p)
				found = found || known
				b.WriteString(v)
			case *syntax.CmdSubst:
				found = true
				if text, ok := substitutedText([]syntax.WordPart{p}); ok {
					b.WriteString(text)
				} else {
					b.WriteString(a.printedWords(p.Stmts))
				}
			case *syntax.ProcSubst:
				// bash <(echo rm -rf ~) runs what the commands print.
				found = true
				b.WriteString(a.printedWords(p.Stmts))
			default:
				b.WriteString(a.src(p))
			}
		}
	}
	walk(parts)
	if !found {
		return ""
	}
	return capWorst(b.String())
}

// maxWorstText bounds a worst reading. Variables built from each other
// (x="$x$x" thirty times) would otherwise double it at every step; a
// longer reading is cut, which leaves the line unanalysable (high) at
// least, never approved.
const maxWorstText = 4096

func capWorst(s string) string {
	if len(s) > maxWorstText {
		return s[:maxWorstText]
	}
	return s
}

// paramValue returns what a parameter expansion may expand to: the
// literal or worst value the script gave the variable, or the word
// ${x:-word} falls back to; otherwise its source text, and known false.
func (a *analyzer) paramValue(p *syntax.ParamExp) (string, bool) {
	if p.Param != nil && simpleParam(p) {
		if v, ok := a.vars[p.Param.Value]; ok {
			return v, true
		}
		if v, ok := a.worstVars[p.Param.Value]; ok {
			return v, true
		}
	}
	if f := a.fallback(p); f != "" {
		return f, true
	}
	return a.src(p), false
}

// printedWords returns, for the commands of a substitution, the words
// after each command's name and leading options, one command per line:
// `echo -n rm -rf "$HOME"` gives "rm -rf ~".
func (a *analyzer) printedWords(stmts []*syntax.Stmt) string {
	var lines []string
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				// A nested substitution is read through the word holding
				// it; walking into it too would repeat the work at every
				// level of nesting.
				return false
			}
			ce, ok := n.(*syntax.CallExpr)
			if !ok || len(ce.Args) < 2 {
				return true
			}
			var ws []string
			for _, w := range ce.Args[1:] {
				jw := a.join(w.Parts, a.src(w))
				v := jw.s
				if jw.dynamic {
					if worst := a.worstOf(jw); worst != "" {
						v = worst
					}
				}
				if len(ws) == 0 && strings.HasPrefix(v, "-") {
					continue
				}
				ws = append(ws, v)
			}
			if len(ws) > 0 {
				lines = append(lines, strings.Join(ws, " "))
			}
			return true
		})
	}
	return capWorst(strings.Join(lines, "\n"))
}

// worstJoin is the worst text of words joined by spaces: each dynamic
// word's reconstruction or worst reading, else its text.
func (a *analyzer) worstJoin(ws []word) string {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		switch worst := a.worstOf(w); {
		case worst != "":
			parts = append(parts, worst)
		case !w.dynamic && strings.ContainsAny(w.s, " \t\n;&|<>()$`\"'\\*?[#"):
			// A literal word stays one word: "$(echo bash)" -c 'rm -rf ~'.
			parts = append(parts, shellQuote(w.s))
		default:
			parts = append(parts, w.s)
		}
	}
	return capWorst(strings.Join(parts, " "))
}

// worstReading judges text, what command idx may run at worst, in an
// analysis of its own: its commands are not known to run, so they do
// not join the line's commands, but when running them would be critical
// the line is critical too.
func (a *analyzer) worstReading(idx int, text string) {
	if text == "" || a.depth+1 > maxNesting {
		return
	}
	sub := &analyzer{input: text, res: CommandAnalysis{Input: text}}
	sub.analyzeScript(text, -1, a.depth+1)
	r := sub.finish()
	if r.Severity < SeverityCritical || len(r.Paths) == 0 && !strings.ContainsAny(text, "/~") {
		// Only a reading that names a path escalates: `eval "$(pyenv
		// init -)"` is not sysvinit's init, but `rm -rf ~` is what it says.
		return
	}
	why := ""
	for _, c := range r.Concerns {
		if c.Severity == SeverityCritical {
			why = c.Reason
			break
		}
	}
	a.concern(idx, EffectExecutes, SeverityCritical, true, "may run "+short(strings.ReplaceAll(text, "\n", "; "))+", text known only at run time, which would be critical: "+why)
}

// worstOf returns the worst text a dynamic word (a command name, a
// script) expands to: its reconstruction or worst reading (worstText);
// "" when there is none.
func (a *analyzer) worstOf(w word) string {
	switch {
	case !w.dynamic:
		return ""
	case w.printed:
		return w.payload
	case w.joined != nil:
		return a.worstJoin(w.joined)
	}
	return a.worstText(w.parts)
}

// setWorstVar records the worst text of a variable assigned value, or
// forgets what an earlier assignment gave it.
func (a *analyzer) setWorstVar(name string, value word) {
	worst := a.worstOf(value)
	if worst == "" {
		delete(a.worstVars, name)
		return
	}
	if a.worstVars == nil {
		a.worstVars = make(map[string]string)
	}
	a.worstVars[name] = worst
}
