package safety

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Scripts often arrive as text another command prints: `echo 'rm -rf ~' |
// bash`, `printf '\x72\x6d -rf ~' | sh`, `eval "$(printf …)"`. When that
// command is echo or printf with literal arguments, the payload is
// reconstructed (escapes decoded as printf and echo -e decode them) and
// analysed as the script it is. Output of a decoder (base64 -d, xxd -r)
// cannot be read statically and is critical wherever a shell runs it.

// printedText returns what statement s prints when it is a literal echo
// or printf, or cat of a literal here-string or here-document, and
// whether it could be reconstructed.
func printedText(s *syntax.Stmt) (string, bool) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return "", false
	}
	if len(s.Redirs) > 0 {
		return catHeredoc(s, ce)
	}
	args := make([]string, 0, len(ce.Args))
	for _, w := range ce.Args {
		v, ok := literal(w)
		if !ok {
			return "", false
		}
		args = append(args, v)
	}
	switch args[0] {
	case "printf":
		if len(args) < 2 || args[1] == "-v" {
			return "", false
		}
		if args[1] == "--" {
			args = args[1:]
		}
		out, _, err := expand.Format(nil, args[1], args[2:])
		return out, err == nil
	case "echo":
		escapes := false
		rest := args[1:]
		for len(rest) > 0 && (rest[0] == "-e" || rest[0] == "-n" || rest[0] == "-E" || rest[0] == "-ne" || rest[0] == "-en") {
			escapes = escapes || strings.Contains(rest[0], "e") && rest[0] != "-E"
			rest = rest[1:]
		}
		text := strings.Join(rest, " ")
		if escapes {
			out, _, err := expand.Format(nil, strings.ReplaceAll(text, "%", "%%"), nil)
			return out, err == nil
		}
		return text, true
	}
	return "", false
}

// catHeredoc returns what a bare `cat <<< 'text'` or `cat <<'EOF'` with a
// literal body prints: the text the shell after it runs.
func catHeredoc(s *syntax.Stmt, ce *syntax.CallExpr) (string, bool) {
	if len(ce.Args) != 1 || len(s.Redirs) != 1 {
		return "", false
	}
	if name, ok := literal(ce.Args[0]); !ok || name != "cat" {
		return "", false
	}
	r := s.Redirs[0]
	switch {
	case r.Op == syntax.WordHdoc && r.Word != nil:
		text, ok := literal(r.Word)
		return text + "\n", ok
	case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
		return heredocBody(r)
	}
	return "", false
}

// heredocBody returns a here-document's text when it has no expansion:
// its body is plain text, and either the delimiter is quoted (nothing
// in the body is special) or no backslash needs interpreting.
func heredocBody(r *syntax.Redirect) (string, bool) {
	quoted := false
	for _, p := range r.Word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		}
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || !quoted && strings.Contains(l.Value, "\\") {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return b.String(), true
}

// substitutedText returns the text of a word that is exactly one command
// substitution of a literal echo or printf ("$(printf 'rm -rf ~')"), or a
// process substitution of one (bash <(echo 'rm -rf ~') runs the text).
func substitutedText(parts []syntax.WordPart) (string, bool) {
	if len(parts) != 1 {
		return "", false
	}
	p := parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	var stmts []*syntax.Stmt
	switch p := p.(type) {
	case *syntax.CmdSubst:
		stmts = p.Stmts
	case *syntax.ProcSubst:
		if p.Op != syntax.CmdIn {
			return "", false
		}
		stmts = p.Stmts
	}
	if len(stmts) != 1 {
		return "", false
	}
	text, ok := printedText(stmts[0])
	return strings.TrimRight(text, "\n"), ok // $(…) drops trailing newlines
}

// stdinScript judges a shell or interpreter that reads its program from
// standard input.
func stdinScript(c *call) {
	if h := c.heredoc; h != nil {
		body := h.Hdoc
		if h.Op == syntax.WordHdoc {
			body = h.Word
		}
		if body != nil && runsStdinAsScript(c.base) {
			w := c.a.join(body.Parts, c.a.src(body))
			if w.dynamic {
				c.unanalyzable(c.base + " runs a here-document with expansions")
				c.a.worstReading(c.idx, c.a.worstText(body.Parts)) // bash <<< "$(echo rm -rf ~)"
				return
			}
			c.a.res.Commands[c.idx].Wrapper = Transparent
			c.a.analyzeScript(w.s, c.idx, c.a.depth+1)
			return
		}
		c.concern(EffectExecutes, SeverityMedium, true, c.base+" runs a program from a here-document, which no rule for "+c.base+" covers")
		return
	}
	switch c.a.pipe {
	case stdinFetched:
		c.concern(EffectExecutes, SeverityCritical, true, "pipes downloaded or decoded content into "+c.base)
	case stdinPipe:
		if c.a.pipeText != nil && runsStdinAsScript(c.base) {
			// echo 'ls -la' | bash: the script is what echo printed.
			c.a.res.Commands[c.idx].Wrapper = Transparent
			c.a.analyzeScript(*c.a.pipeText, c.idx, c.a.depth+1)
			return
		}
		c.unanalyzable(c.base + " runs a program read from a pipe")
	default:
		c.concern(EffectHidden, SeverityMedium, false, "starts an interactive "+c.base) // what it runs is typed later
	}
}

// runsStdinAsScript reports commands that run their standard input as a
// shell script: shells, source, and at and batch (later, with sh).
func runsStdinAsScript(b string) bool {
	return isShellName(b) || b == "source" || b == "." || b == "at" || b == "batch"
}

func isShellName(b string) bool {
	switch b {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh":
		return true
	}
	return false
}
