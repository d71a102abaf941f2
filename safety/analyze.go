package safety

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tetherdev/tether/internal/lazyregexp"
	"mvdan.cc/sh/v3/syntax"
)

// AnalyzeCommand parses cmd as bash (mvdan.cc/sh) and judges every
// command that can run in it: pipelines, lists, subshells, blocks, command
// and process substitutions, unquoted here-document bodies, control
// structures, function bodies, declaration values, and the literal scripts
// given to bash -c, eval, trap, watch, su -c and env -S. Wrappers are
// unwrapped (`sudo rm` lists sudo, then rm). Commands are listed in the
// order they run: a substitution before the command whose word it is in.
//
// Words are normalised as bash would before anything is matched: quotes
// and backslashes removed, $'…' decoded, braces expanded ({rm,-rf,~} is
// rm -rf ~), $HOME read as ~. A literal `cd DIR` earlier in the line is
// followed, so `cd / && rm -rf .` deletes /.
//
// The severity is the highest tier over all sub-commands:
//
//   - critical: recursive or forced deletes of /, system directories,
//     home directories or the workspace's parents; disk tools (mkfs, dd
//     if=, wipefs, shred); fork bombs; writes into system paths or
//     devices; kill -1, shutdown, firewall flushes; downloaded or decoded
//     code fed to a shell or interpreter; reverse shells.
//   - high: privilege (sudo, su, doas), chmod 777, chown root, kill,
//     publishing, destructive git, rm -r/-f in the workspace, find -delete,
//     exfiltration (curl -d, nc, scp, remote rsync), persistence (start-up
//     files, ssh keys, crontab, git hooks and program-running git config,
//     agent configuration), escape-hatch flags (find -exec, rg --pre,
//     git -c/-p/--output/--ext-diff, sed e/w, sort --compress-program …),
//     dangerous environment (LD_PRELOAD, PATH, PAGER, GIT_SSH_COMMAND …),
//     and everything unanalysable.
//   - medium: installs, builds, tests, scripts, inline interpreter code,
//     containers, network fetches, workspace writes, non-destructive git
//     mutations, and unknown commands.
//   - none: read-only inspection (ls, cat, grep, git status, sed -n …)
//     with redirects only to /dev/null or other descriptors.
//
// It fails closed: anything it cannot judge statically — a parse error, a
// dynamic command name, eval of a variable, ${!x}, ${x@P}, arithmetic over
// variables, $IFS, raw CR, NUL or U+2028/U+2029/U+0085 outside quotes — is
// at least high and marks the analysis Unanalyzable. A command name or a
// script (eval, sh -c, bash <(…), a here-string) made of a substitution
// whose output cannot be reconstructed is also judged by its worst
// reading, each substituted command printing its arguments: critical when
// that reading is, so `eval "$(echo rm -rf ~)"` is critical. There is no length
// cap: a long command is analysed completely. Shapes no real command has
// (nesting beyond 1000 levels, 64 wrappers inside each other, scripts in
// scripts beyond 12 levels) are unanalysable rather than walked at
// quadratic cost.
//
// Static analysis cannot see into scripts, interpreters or programs: it is
// the first line of defence; an OS sandbox is the boundary.
func AnalyzeCommand(cmd string) CommandAnalysis {
	a := &analyzer{input: cmd, res: CommandAnalysis{Input: cmd}}
	a.top(cmd)
	return a.finish()
}

// top analyses the whole line. A bug in the analyser must neither crash
// the host nor approve anything: a panic fails closed like any other
// unanalysable input (the fuzz target treats it as a failure).
func (a *analyzer) top(cmd string) {
	defer func() {
		if r := recover(); r != nil {
			a.unanalyzable(-1, fmt.Sprintf("%s: %v", errInternal, r))
		}
	}()
	// A command per ~24 bytes is typical of long chains; sizing the
	// slices up front keeps 100 KB inputs from regrowing them repeatedly.
	if n := len(cmd) / 24; n > 8 {
		a.res.Commands = make([]Command, 0, n)
		a.res.Concerns = make([]Concern, 0, n/2)
	}
	if r, off, ok := deceptiveRune(cmd); ok {
		a.concern(-1, EffectHidden, SeverityHigh, true, fmt.Sprintf("contains %U at byte %d, an invisible, bidirectional or terminal control character that can make the command shown for approval differ from the one that runs", r, off))
	}
	a.analyzeScript(cmd, -1, 0)
	if strings.Contains(cmd, "IFS") {
		// rm${IFS}-rf${IFS}~ is unanalysable as written; with the default
		// $IFS it is rm -rf ~, which is judged too.
		if r := ifsSpaces.ReplaceAllString(cmd, " "); r != cmd {
			a.analyzeScript(r, -1, 1)
		}
	}
}

// ifsSpaces matches the expansions of $IFS that obfuscation uses for a
// word break: $IFS, ${IFS} and slices of it such as ${IFS:0:1}.
var ifsSpaces = lazyregexp.New(`\$\{IFS(:[^}]*)?\}|\$IFS\b`)

// errInternal prefixes the concern recorded when the analyser panics.
const errInternal = "internal error in the command analyser"

// finish computes the line's severity from its concerns.
func (a *analyzer) finish() CommandAnalysis {
	a.pathEffects()
	a.listEffects()
	a.res.Severity = SeverityNone
	for _, c := range a.res.Concerns {
		a.res.Severity = max(a.res.Severity, c.Severity)
	}
	if a.res.Unanalyzable {
		a.res.Severity = max(a.res.Severity, SeverityHigh)
	}
	return a.res
}

// parsers recycles bash parsers: a new one costs about 5 KB, most of the
// allocation of analysing a short command. Parse resets all parser state,
// and the returned syntax tree does not refer back to the parser.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// maxNesting bounds how deep scripts inside scripts (bash -c "bash -c …")
// are followed; deeper nesting is unanalysable, never silently accepted.
const maxNesting = 12

// maxDepth bounds syntactic nesting. The parser slows down
// superlinearly on thousands of nested levels, and no real command nests
// that deep; beyond the bound the line is unanalysable (fails closed).
const maxDepth = 1000

// nestingDepth over-approximates how deeply s nests (…), {…}, $(…) and
// `…`, skipping single-quoted text and backslash escapes.
func nestingDepth(s string) int {
	depth, deepest := 0, 0
	single, double, tick := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case single:
			single = c != '\''
			continue
		case c == '\\':
			i++
			continue
		case c == '\'' && !double:
			single = true
			continue
		case c == '"':
			double = !double
			continue
		case c == '`':
			tick = !tick
			if tick {
				depth++
			} else if depth > 0 {
				depth--
			}
		case c == '(' || c == '{' && !double:
			depth++
		case (c == ')' || c == '}' && !double) && depth > 0:
			depth--
		}
		deepest = max(deepest, depth)
	}
	return deepest
}

// analyzer holds the state of one AnalyzeCommand call. It is not shared.
type analyzer struct {
	input string
	res   CommandAnalysis
	// effects lists each command's effects in the order found (see
	// addEffect).
	effects []effectRec

	// secrets lists the variables with secret names expanded so far; a
	// simple command owns those expanded in its words.
	secrets []string

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
	// worstVars holds, for variables assigned a command substitution
	// that cannot be reconstructed, its worst text (see worstText).
	worstVars map[string]string

	// fetchers counts fetch and decode commands emitted so far, so that
	// a substitution or pipe stage can tell in O(1) whether it ran one.
	fetchers int
	// inFunc counts the function bodies being walked by name, to spot a
	// function that calls itself (fork bomb) without rescanning.
	inFunc map[string]int

	// cwd is the directory the script changed into with a literal cd,
	// or "" for the workspace (see chdir).
	cwd string

	// wrapDepth counts wrappers being unwrapped (see maxWrappers).
	wrapDepth int

	// downloads holds files fetch commands wrote earlier in the line.
	downloads map[string]bool

	// loopFiles maps the variable of each enclosing for loop over literal
	// words to those words (see runtimeFiles).
	loopFiles map[string][]string
	// pipeFiles holds the patterns of the file names the previous stage
	// of the pipeline being walked prints, for xargs; nil when unknown.
	pipeFiles []string
	// pipeText is what the previous stage prints when it is a literal
	// echo or printf (see printedText), for a shell reading its stdin.
	pipeText *string

	// symlinks maps the links `ln -s` made earlier in the line to their
	// targets, so that a later write through one is judged at its target.
	symlinks map[string]string

	// intAttr is set once the line gives a variable the integer
	// attribute (declare -i): later assignments evaluate arithmetic.
	intAttr bool
}

// pipeIn says where a pipeline stage's standard input comes from.
type pipeIn int

const (
	stdinNone    pipeIn = iota // not the tail of a pipe
	stdinPipe                  // output of a previous stage
	stdinFetched               // output of a network fetch or decoder
)

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
	if d := nestingDepth(script); d > maxDepth {
		a.unanalyzable(parent, fmt.Sprintf("nests brackets, braces or substitutions %d levels deep (more than %d)", d, maxDepth))
		return
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(script), "")
	parsers.Put(p)
	if err != nil {
		a.unanalyzable(parent, "does not parse as bash: "+parseMessage(err))
		return
	}
	if r, off, ok := strayLineBreak(script, f); ok {
		a.unanalyzable(parent, fmt.Sprintf("contains a raw %s outside quotes at byte %d, which bash and this parser split differently", r, off))
		return
	}
	// The script inherits its runner's standard input: in
	// `curl … | bash -c 'sh'` the inner sh reads the download.
	savedText, savedDepth, savedPipe := a.text, a.depth, a.pipe
	a.text, a.depth = script, depth
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
	// Mark quoted bytes once; ranges do not nest because the walk stops
	// at double quotes, so this is linear in the input.
	quoted := make([]bool, len(script)+1)
	mark := func(n syntax.Node) {
		for i := int(n.Pos().Offset()); i < int(n.End().Offset()) && i < len(quoted); i++ {
			quoted[i] = true
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.SglQuoted:
			mark(n)
		case *syntax.DblQuoted:
			mark(n)
			return false
		case *syntax.Redirect:
			if n.Hdoc != nil {
				mark(n.Hdoc)
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
		if !quoted[i] {
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

// deceptiveRune finds the first character that can hide or reorder text
// when a command is shown to a human: C0 controls other than tab and
// newline (ESC starts terminal escape sequences), DEL, C1 controls,
// zero-width and bidirectional formatting characters, soft hyphen, BOM.
func deceptiveRune(s string) (rune, int, bool) {
	for i, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == 0:
			// NUL is judged by the parser checks.
		case r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029:
			// Terminals show these as line breaks that bash does not make,
			// even inside quotes: echo "safe<CR>rm -rf ~" looks like
			// "rm -rf ~" when shown.
			return r, i, true
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0,
			r == 0xad, r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
			r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			return r, i, true
		}
	}
	return 0, 0, false
}

// short abbreviates source text quoted in names and reasons, so that a
// deeply nested 100 KB input cannot make every level copy all of it.
func short(s string) string {
	const limit = 80
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// concern records a finding about command idx (-1: the whole line): what
// it does, in the vocabulary of Effect, and how severe it is here. The
// effect's own severity is a floor the scope may raise (rm -r of a
// directory deletes, and is high), never lower.
func (a *analyzer) concern(idx int, e Effect, sev Severity, noAuto bool, reason string) {
	sev = max(sev, e.Severity())
	a.res.Concerns = append(a.res.Concerns, Concern{Command: idx, Severity: sev, NoAutoApprove: noAuto, Reason: reason, Effect: e})
	if idx >= 0 && idx < len(a.res.Commands) {
		cmd := &a.res.Commands[idx]
		cmd.Severity = max(cmd.Severity, sev)
		a.addEffect(idx, e)
	}
}

// unanalyzable records something that cannot be judged: high, never
// auto-approved.
func (a *analyzer) unanalyzable(idx int, reason string) {
	a.res.Unanalyzable = true
	a.concern(idx, EffectHidden, SeverityHigh, true, reason)
}

// path records a file access.
func (a *analyzer) path(idx int, p string, op Op, redirect bool) {
	if p == "" {
		return
	}
	a.res.Paths = append(a.res.Paths, PathAccess{Path: p, Op: op, Command: idx, Redirect: redirect})
}
