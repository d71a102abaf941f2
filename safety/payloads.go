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
// or printf, and whether it could be reconstructed.
func printedText(s *syntax.Stmt) (string, bool) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(s.Redirs) > 0 || len(ce.Args) == 0 {
		return "", false
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

// substitutedText returns the text of a word that is exactly one command
// substitution of a literal echo or printf ("$(printf 'rm -rf ~')").
func substitutedText(parts []syntax.WordPart) (string, bool) {
	if len(parts) != 1 {
		return "", false
	}
	p := parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	cs, ok := p.(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return "", false
	}
	text, ok := printedText(cs.Stmts[0])
	return strings.TrimRight(text, "\n"), ok // $(…) drops trailing newlines
}
