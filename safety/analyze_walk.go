package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file walks the syntax tree: every construct in which a command can
// run is visited, and every word is scanned for nested commands.

func (a *analyzer) stmts(list []*syntax.Stmt, parent int) {
	for _, s := range list {
		a.stmt(s, parent)
	}
}

// stmt walks one statement; its redirects belong to the first command the
// statement runs.
func (a *analyzer) stmt(s *syntax.Stmt, parent int) {
	if s == nil {
		return
	}
	first := len(a.res.Commands)
	var heredoc *syntax.Redirect
	for _, r := range s.Redirs {
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc) && heredoc == nil {
			heredoc = r
		}
	}
	a.command(s.Cmd, parent, heredoc)
	idx := first
	if idx >= len(a.res.Commands) {
		idx = parent
	}
	if _, simple := s.Cmd.(*syntax.CallExpr); !simple && s.Cmd != nil {
		// A redirect on a compound command applies to all of it.
		if _, decl := s.Cmd.(*syntax.DeclClause); !decl {
			idx = -1
		}
	}
	for _, r := range s.Redirs {
		a.redirect(r, idx)
	}
}

func (a *analyzer) command(c syntax.Command, parent int, heredoc *syntax.Redirect) {
	switch c := c.(type) {
	case nil:
	case *syntax.CallExpr:
		a.callExpr(c, parent, heredoc)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			a.pipeline(c, parent)
			return
		}
		saved := a.pipe
		a.stmt(c.X, parent)
		a.pipe = saved
		a.stmt(c.Y, parent)
	case *syntax.Subshell:
		a.stmts(c.Stmts, parent)
	case *syntax.Block:
		a.stmts(c.Stmts, parent)
	case *syntax.IfClause:
		for cl := c; cl != nil; cl = cl.Else {
			a.stmts(cl.Cond, parent)
			a.stmts(cl.Then, parent)
		}
	case *syntax.WhileClause:
		a.stmts(c.Cond, parent)
		a.stmts(c.Do, parent)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				a.scanWord(w)
			}
			// Inside the body the variable is one of the items: known
			// files when every item is literal.
			if items := loopItems(l.Items); items != nil {
				if a.loopFiles == nil {
					a.loopFiles = map[string][]string{}
				}
				saved, had := a.loopFiles[l.Name.Value]
				a.loopFiles[l.Name.Value] = items
				a.stmts(c.Do, parent)
				if had {
					a.loopFiles[l.Name.Value] = saved
				} else {
					delete(a.loopFiles, l.Name.Value)
				}
				return
			}
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				a.arith(x, parent)
			}
		}
		a.stmts(c.Do, parent)
	case *syntax.CaseClause:
		a.scanWord(c.Word)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				a.scanWord(p)
			}
			a.stmts(it.Stmts, parent)
		}
	case *syntax.FuncDecl:
		a.funcDecl(c, parent)
	case *syntax.ArithmCmd:
		a.arith(c.X, parent)
	case *syntax.TestClause:
		a.testExpr(c.X)
	case *syntax.DeclClause:
		a.declClause(c, parent)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			a.arith(x, parent)
		}
	case *syntax.TimeClause:
		idx := a.emit([]word{{s: "time"}}, parent, Transparent)
		if c.Stmt != nil {
			a.stmt(c.Stmt, idx)
		}
	case *syntax.CoprocClause:
		a.concern(parent, EffectExecutes, SeverityMedium, false, "starts a coprocess")
		a.stmt(c.Stmt, parent)
	default:
		a.unanalyzable(parent, "uses shell syntax this analyser does not know")
	}
}

// pipeline walks a | b | c, telling each later stage where its input
// comes from so that `curl … | sh` is recognised.
func (a *analyzer) pipeline(c *syntax.BinaryCmd, parent int) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Negated {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(c.X)
	flatten(c.Y)
	saved := a.pipe
	in := saved
	savedFiles, savedText := a.pipeFiles, a.pipeText
	for i, s := range stages {
		if i > 0 && in < stdinPipe {
			in = stdinPipe
		}
		a.pipe = in
		a.pipeFiles, a.pipeText = nil, nil
		if i > 0 {
			a.pipeFiles = fileListOf(stages[i-1])
			if text, ok := printedText(stages[i-1]); ok {
				a.pipeText = &text
			}
		}
		before := a.fetchers
		a.stmt(s, parent)
		if a.fetchers > before {
			in = stdinFetched
		}
	}
	a.pipe, a.pipeFiles, a.pipeText = saved, savedFiles, savedText
}

func (a *analyzer) funcDecl(f *syntax.FuncDecl, parent int) {
	name := "(anonymous)"
	if f.Name != nil {
		name = f.Name.Value
	} else if len(f.Names) > 0 {
		name = f.Names[0].Value
	}
	if f.Body == nil {
		a.unanalyzable(parent, "function "+name+" has no body")
		return
	}
	a.concern(parent, EffectHidden, SeverityMedium, true, "defines shell function "+name+", which can shadow any command")
	if a.inFunc == nil {
		a.inFunc = make(map[string]int)
	}
	a.inFunc[name]++
	a.stmt(f.Body, parent)
	a.inFunc[name]--
}

func (a *analyzer) declClause(d *syntax.DeclClause, parent int) {
	ws := []word{{s: d.Variant.Value}}
	idx := a.emit(ws, parent, NotWrapper)
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			f := a.fields(as.Value)
			for _, w := range f {
				a.res.Commands[idx].Args = append(a.res.Commands[idx].Args, w.s)
				a.res.Commands[idx].words = append(a.res.Commands[idx].words, w)
				switch {
				case w.dynamic:
					a.unanalyzable(idx, d.Variant.Value+" of a dynamic word "+w.s)
				case subscriptRuns(strings.SplitN(w.s, "=", 2)[0]):
					a.unanalyzable(idx, d.Variant.Value+" "+short(w.s)+" evaluates the array subscript as arithmetic, which runs the command substitution in it")
				case strings.HasPrefix(w.s, "-") && strings.Contains(w.s, "i") && !strings.Contains(w.s, "n"):
					a.intAttr = true
				case strings.HasPrefix(w.s, "-") && strings.Contains(w.s, "n"):
					// declare -n r=PATH; r=/tmp changes PATH under another name.
					a.unanalyzable(idx, d.Variant.Value+" "+w.s+" makes a name reference, which hides what later assignments change")
				}
			}
			continue
		}
		a.assign(as, idx, true)
		text := a.src(as)
		a.res.Commands[idx].Args = append(a.res.Commands[idx].Args, text)
		a.res.Commands[idx].words = append(a.res.Commands[idx].words, word{s: text})
	}
	var flags []string
	for _, w := range a.res.Commands[idx].words[1:] {
		if strings.HasPrefix(w.s, "-") && !w.dynamic {
			flags = append(flags, w.s)
		}
	}
	args := len(a.res.Commands[idx].words) - 1
	if dumpsVariables(d.Variant.Value, args, flags, args-len(flags)) {
		a.concern(idx, EffectReads, SeverityMedium, false, printsEnvironmentReason(d.Variant.Value))
	}
}

// scanWord walks a word for nested commands and unanalysable expansions.
func (a *analyzer) scanWord(w *syntax.Word) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		a.scanPart(p)
	}
}

func (a *analyzer) scanPart(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.CmdSubst:
		a.substitution(p, p.Stmts)
	case *syntax.ProcSubst:
		a.substitution(p, p.Stmts)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			a.scanPart(q)
		}
	case *syntax.ArithmExp:
		a.arith(p.X, -1)
	case *syntax.ParamExp:
		a.paramExp(p)
	case *syntax.BraceExp:
		for _, e := range p.Elems {
			a.scanWord(e)
		}
	}
}

// substitution walks the commands of $(…), `…`, <(…) or >(…) and notes
// whether their output is downloaded or decoded content.
func (a *analyzer) substitution(n syntax.WordPart, list []*syntax.Stmt) {
	saved := a.pipe
	a.pipe = stdinNone
	before := a.fetchers
	a.stmts(list, -1)
	a.pipe = saved
	if a.fetchers > before {
		if a.fetched == nil {
			a.fetched = make(map[syntax.WordPart]bool)
		}
		a.fetched[n] = true
	}
}

// paramExp flags expansions whose value is code or another variable's
// name, and scans nested words.
func (a *analyzer) paramExp(p *syntax.ParamExp) {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	switch {
	case p.Excl && p.Names == 0:
		a.unanalyzable(-1, "indirect expansion ${!"+name+"} names its variable at run time")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.ContainsAny(p.Exp.Word.Lit(), "PEAK"):
		a.unanalyzable(-1, "${"+name+"@"+p.Exp.Word.Lit()+"} re-evaluates a value as prompt or shell text")
	case name == "IFS":
		a.unanalyzable(-1, "expands $IFS, a common trick to hide word boundaries")
	case p.NestedParam != nil:
		a.unanalyzable(-1, "nested parameter expansion")
	case secretName(name) && !p.Length && (p.Exp == nil || p.Exp.Op != syntax.AlternateUnset && p.Exp.Op != syntax.AlternateUnsetOrNull):
		a.secrets = append(a.secrets, name)
	}
	if p.Index != nil && !allElements(p.Index) {
		a.arith(p.Index, -1)
	}
	if p.Slice != nil {
		a.arith(p.Slice.Offset, -1)
		a.arith(p.Slice.Length, -1)
	}
	if p.Repl != nil {
		a.scanWord(p.Repl.Orig)
		a.scanWord(p.Repl.With)
	}
	if p.Exp != nil {
		a.scanWord(p.Exp.Word)
	}
}

// arith walks an arithmetic expression. Bash evaluates the value of a
// variable used in arithmetic as another expression, and an array index
// in that value can run a command (`x='a[$(rm -rf ~)]'; echo $((x))`), so
// arithmetic over variables is unanalysable.
func (a *analyzer) arith(x syntax.ArithmExpr, idx int) {
	if x == nil {
		return // ${x:1} has no length, for ((;;)) no parts
	}
	reported := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			if lit := n.Lit(); lit != "" && isArithLiteral(lit) {
				return false
			}
			for _, p := range n.Parts {
				a.scanPart(p)
			}
			if !reported {
				reported = true
				a.unanalyzable(idx, "arithmetic over variables ("+short(a.src(n))+") can run commands hidden in their values")
			}
			return false
		}
		return true
	})
}

// allElements reports the subscripts @ and * of ${arr[@]} and ${arr[*]},
// which name every element and are never evaluated as arithmetic.
func allElements(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	lit := w.Lit()
	return lit == "@" || lit == "*"
}

func isArithLiteral(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == 'x' || r == 'X' || r == '#' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

func (a *analyzer) testExpr(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		a.scanWord(x)
	case *syntax.BinaryTest:
		a.testExpr(x.X)
		a.testExpr(x.Y)
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			// [[ $x -eq 1 ]] evaluates $x as arithmetic, like $((x)).
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); ok && !isArithLiteral(w.Lit()) {
					a.unanalyzable(-1, "arithmetic comparison of "+short(a.src(w))+" can run commands hidden in its value")
					return
				}
			}
		}
	case *syntax.UnaryTest:
		a.testExpr(x.X)
		if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar) {
			if v, lit := a.literal(w); lit && subscriptRuns(v) {
				a.unanalyzable(-1, "[[ "+x.Op.String()+" "+short(v)+" ]] evaluates the array subscript as arithmetic, which runs the command substitution in it")
			}
		}
	case *syntax.ParenTest:
		a.testExpr(x.X)
	}
}

// subscriptRuns reports a variable name whose array subscript holds a
// command substitution or expansion: bash evaluates a subscript as
// arithmetic wherever a builtin takes a name — test -v, printf -v, read,
// declare, unset … — so `test -v 'a[$(rm -rf ~)]'` runs rm although the
// substitution is single-quoted.
func subscriptRuns(name string) bool {
	i := strings.IndexByte(name, '[')
	return i >= 0 && strings.ContainsAny(name[i:], "$`")
}
