package safety

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// AnalyzeCommand parses cmd as bash and judges every command that can run
// in it: pipelines, lists, subshells, blocks, command and process
// substitutions, unquoted here-document bodies, control structures,
// function bodies, declaration values, and the literal scripts given to
// bash -c, eval, trap, watch, su -c and env -S. Wrappers are unwrapped
// (`sudo rm` lists sudo, then rm).
//
// It fails closed: anything it cannot judge statically — a parse error, a
// dynamic command name, eval of a variable, ${!x}, ${x@P}, arithmetic over
// variables, $IFS, raw CR, NUL or U+2028/U+2029/U+0085 outside quotes — is
// at least high and marks the analysis Unanalyzable. There is no length
// cap: a long command is analysed completely.
func AnalyzeCommand(cmd string) CommandAnalysis {
	a := &analyzer{input: cmd, res: CommandAnalysis{Input: cmd}}
	// A command per ~24 bytes is typical of long chains; sizing the
	// slices up front keeps 100 KB inputs from regrowing them repeatedly.
	if n := len(cmd) / 24; n > 8 {
		a.res.Commands = make([]Command, 0, n)
		a.res.Concerns = make([]Concern, 0, n/2)
	}
	a.analyzeScript(cmd, -1, 0)
	a.res.Severity = SeverityNone
	for _, c := range a.res.Concerns {
		a.res.Severity = max(a.res.Severity, c.Severity)
	}
	if a.res.Unanalyzable {
		a.res.Severity = max(a.res.Severity, SeverityHigh)
	}
	return a.res
}

// maxNesting bounds how deep scripts inside scripts (bash -c "bash -c …")
// are followed; deeper nesting is unanalysable, never silently accepted.
const maxNesting = 12

// analyzer holds the state of one AnalyzeCommand call. It is not shared.
type analyzer struct {
	input string
	res   CommandAnalysis

	// text is the source currently being walked: the input, or a nested
	// script (bash -c '…') whose positions the AST refers to.
	text  string
	depth int

	// pipe describes the standard input of the command being walked.
	pipe pipeIn

	// fetched marks substitutions whose output is downloaded or decoded.
	fetched map[syntax.WordPart]bool

	// vars holds literal values the script assigned (x=rm), so that
	// `$x -rf ~` is also judged as `rm -rf ~`. Only a hint: a dynamic
	// command name stays unanalysable whatever the value.
	vars map[string]string
}

// pipeIn says where a pipeline stage's standard input comes from.
type pipeIn int

const (
	stdinNone    pipeIn = iota // not the tail of a pipe
	stdinPipe                  // output of a previous stage
	stdinFetched               // output of a network fetch or decoder
)

// ErrUnanalyzable is wrapped by the reason for anything AnalyzeCommand
// cannot judge; it is exported so that callers logging analysis failures
// can classify them with errors.Is.
var ErrUnanalyzable = errors.New("command cannot be analysed statically")

// analyzeScript parses script and walks it. parent is the command that
// runs the script (bash -c, eval…) or -1 for the top level.
func (a *analyzer) analyzeScript(script string, parent, depth int) {
	if depth > maxNesting {
		a.unanalyzable(parent, fmt.Sprintf("scripts nested more than %d levels deep", maxNesting))
		return
	}
	if strings.IndexByte(script, 0) >= 0 {
		a.unanalyzable(parent, "contains a NUL byte")
		return
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
	f, err := p.Parse(strings.NewReader(script), "")
	if err != nil {
		a.unanalyzable(parent, "does not parse as bash: "+parseMessage(err))
		return
	}
	if r, off, ok := strayLineBreak(script, f); ok {
		a.unanalyzable(parent, fmt.Sprintf("contains a raw %s outside quotes at byte %d, which bash and this parser split differently", r, off))
		return
	}
	savedText, savedDepth, savedPipe := a.text, a.depth, a.pipe
	a.text, a.depth, a.pipe = script, depth, stdinNone
	a.stmts(f.Stmts, parent)
	a.text, a.depth, a.pipe = savedText, savedDepth, savedPipe
}

func parseMessage(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return err.Error()
}

// strayLineBreak finds a CR, U+0085, U+2028 or U+2029 that is not inside
// a quoted string or here-document body: bash treats them as ordinary
// characters while mvdan.cc/sh splits words on CR, so the two would see
// different commands.
func strayLineBreak(script string, f *syntax.File) (name string, off int, found bool) {
	if !strings.ContainsAny(script, "\r\u0085\u2028\u2029") {
		return "", 0, false
	}
	var quoted [][2]int
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.SglQuoted:
			quoted = append(quoted, [2]int{int(n.Pos().Offset()), int(n.End().Offset())})
		case *syntax.DblQuoted:
			quoted = append(quoted, [2]int{int(n.Pos().Offset()), int(n.End().Offset())})
			return false
		case *syntax.Redirect:
			if n.Hdoc != nil {
				quoted = append(quoted, [2]int{int(n.Hdoc.Pos().Offset()), int(n.Hdoc.End().Offset())})
			}
		}
		return true
	})
	for i, r := range script {
		var nm string
		switch r {
		case '\r':
			nm = "carriage return"
		case '\u0085':
			nm = "U+0085 (next line)"
		case '\u2028':
			nm = "U+2028 (line separator)"
		case '\u2029':
			nm = "U+2029 (paragraph separator)"
		default:
			continue
		}
		inside := false
		for _, q := range quoted {
			if i >= q[0] && i < q[1] {
				inside = true
				break
			}
		}
		if !inside {
			return nm, i, true
		}
	}
	return "", 0, false
}

// src returns the source text of n in the script being walked.
func (a *analyzer) src(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(a.text) || s > e {
		return "?"
	}
	return a.text[s:e]
}

// concern records a finding about command idx (-1: the whole line).
func (a *analyzer) concern(idx int, sev Severity, noAuto bool, reason string) {
	a.res.Concerns = append(a.res.Concerns, Concern{Command: idx, Severity: sev, NoAutoApprove: noAuto, Reason: reason})
	if idx >= 0 && idx < len(a.res.Commands) && a.res.Commands[idx].Severity < sev {
		a.res.Commands[idx].Severity = sev
	}
}

// unanalyzable records something that cannot be judged: high, never
// auto-approved.
func (a *analyzer) unanalyzable(idx int, reason string) {
	a.res.Unanalyzable = true
	a.concern(idx, SeverityHigh, true, reason)
}

// path records a file access.
func (a *analyzer) path(idx int, p string, op Op, redirect bool) {
	if p == "" {
		return
	}
	a.res.Paths = append(a.res.Paths, PathAccess{Path: p, Op: op, Command: idx, Redirect: redirect})
}
