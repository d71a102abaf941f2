package safety

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Everyday commands name their files at run time: `for f in *.go; do
// gofmt -l "$f"; done`, `wc -l $(git ls-files '*.ts')`, `find . -name
// '*.go' | xargs grep TODO`. The value is unknown, but the set it is drawn
// from is not: the loop's words, the files git tracks (matching its
// pathspecs), the files find selects by name. When every possible value
// is such a workspace file, the word stands for those patterns, which are
// recorded as the paths read or written (and judged for sensitivity and
// confinement like any other path); otherwise it stays unknown.

// runtimeFiles returns the patterns a dynamic word made of parts can
// expand to, or nil when they are not known.
func (a *analyzer) runtimeFiles(parts []syntax.WordPart) []string {
	if len(parts) != 1 {
		return nil
	}
	p := parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	switch p := p.(type) {
	case *syntax.ParamExp:
		if simpleParam(p) {
			return a.loopFiles[p.Param.Value]
		}
	case *syntax.CmdSubst:
		if len(p.Stmts) == 1 {
			return fileListOf(p.Stmts[0])
		}
	}
	return nil
}

// loopItems returns the literal words a for loop iterates over, or nil
// when some word is only known at run time.
func loopItems(items []*syntax.Word) []string {
	out := make([]string, 0, len(items))
	for _, w := range items {
		s, ok := literal(w)
		if !ok || s == "" {
			return nil
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// fileListOf returns the patterns of the files a statement lists when it
// is one of the listing commands whose output is workspace file names, or
// nil: `git ls-files [pathspec…]` (tracked files, whose content git show
// prints anyway), `git diff --name-only …`, and `find DIR… -name P` over
// relative directories with name tests only.
func fileListOf(s *syntax.Stmt) []string {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(s.Redirs) > 0 || s.Background || s.Negated {
		return nil
	}
	args := make([]string, 0, len(ce.Args))
	for _, w := range ce.Args {
		v, ok := literal(w)
		if !ok {
			return nil
		}
		args = append(args, v)
	}
	switch {
	case len(args) >= 2 && args[0] == "git" && args[1] == "ls-files":
		return gitFileList(args[2:], map[string]bool{"-z": true, "-c": true, "--cached": true, "--full-name": true})
	case len(args) >= 3 && args[0] == "git" && args[1] == "diff" && contains(args, "--name-only"):
		return gitFileList(args[2:], nil)
	case len(args) >= 1 && args[0] == "find":
		return findFileList(args[1:])
	}
	return nil
}

// gitFileList returns a git listing's pathspecs, or "." for all tracked
// files. With allowed set, every option must be in it (git ls-files
// --others lists untracked files, secrets among them); without, options
// and revisions before "--" are accepted and pathspecs follow "--".
func gitFileList(args []string, allowed map[string]bool) []string {
	var specs []string
	afterDashes := false
	for _, a := range args {
		switch {
		case a == "--":
			afterDashes = true
		case !afterDashes && strings.HasPrefix(a, "-"):
			if allowed != nil && !allowed[a] {
				return nil
			}
		case afterDashes || allowed != nil:
			if !relativeSpec(a) {
				return nil
			}
			specs = append(specs, a)
		}
	}
	if len(specs) == 0 {
		return []string{"."}
	}
	return specs
}

// findFileList returns DIR/**/P for each start directory and -name
// pattern of a find that tests names only, or nil.
func findFileList(args []string) []string {
	var dirs, names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-name" || a == "-iname":
			if i+1 >= len(args) {
				return nil
			}
			names = append(names, args[i+1])
			i++
		case a == "-type" || a == "-maxdepth" || a == "-mindepth":
			i++
		case a == "-print" || a == "-print0":
		case !strings.HasPrefix(a, "-") && len(names) == 0 && a != "!" && a != "(":
			if !relativeSpec(a) {
				return nil
			}
			dirs = append(dirs, a)
		default:
			return nil // -o, -path, -exec …: the names are not all tested
		}
	}
	if len(names) == 0 {
		return nil
	}
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	var out []string
	for _, d := range dirs {
		for _, n := range names {
			p := path.Join(d, "**", n)
			if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, ".") {
				p = "./" + p // find prints ./name under ".": never an option
			}
			out = append(out, p)
		}
	}
	return out
}

// relativeSpec reports a path or pattern that stays inside the directory
// it is taken from: not absolute, not in a home directory, no "..", and
// no git pathspec magic (":(…)", ":!").
func relativeSpec(s string) bool {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, ":") {
		return false
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			return false
		}
	}
	return true
}

// literal returns the value of a word made only of literal and quoted
// text.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "\\~") {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(l.Value, "\\$`") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
