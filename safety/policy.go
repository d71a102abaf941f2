package safety

import (
	"context"
	"errors"
	"fmt"
	"github.com/bmatcuk/doublestar/v4"
	"log/slog"
	"path/filepath"
	"strings"
)

// Policy turns everything the safety package knows about one action into a
// single decision with reasons: Allow, Confirm or Deny, also named by the
// risk levels "none", "confirm" and "deny" (see Assessment.RiskLevel).
//
// For a shell command it combines the command's severity and the
// CommandRules verdict, whether its working directory is an existing
// directory inside the workspace, and, for every file the command reads,
// writes or changes into (Paths of AnalyzeCommand: `cat .env`, `echo x >
// .git/hooks/pre-commit`, `cd ../other`), the same confinement and
// sensitivity a file tool gets. For a file tool it is the Workspace check.
// The strictest signal wins.
//
// What each signal contributes:
//
//   - a deny rule, an invalid or outside path or working directory of a
//     file tool, a working directory that does not exist: Deny;
//   - a command no rule auto-approves (critical ones never are), a command
//     touching a sensitive file or reading a secret, a command naming a
//     path outside the workspace, a file tool writing a sensitive or
//     hard-linked file or reading a secret: Confirm;
//   - everything else: Allow.
//
// With Headless set there is nobody to confirm, so Confirm becomes Deny,
// as a gateway serving remote clients must: an unanswerable question is a no.
//
// The zero Policy has no workspace and no rules: it asks about every
// command and denies every file action. A Policy is safe for concurrent use
// when its fields are not changed.
type Policy struct {
	// Workspace confines paths and working directories. Without it, file
	// actions are denied and paths named by commands need approval.
	Workspace *Workspace
	// Rules decide which commands run without asking.
	Rules CommandRules
	// Headless turns every Confirm into Deny: no human is there to ask.
	Headless bool
	// DenyCritical denies critical commands outright instead of asking.
	DenyCritical bool
	// AutoApproveSensitiveEdits lets file tools write sensitive files
	// without asking, for hosts that expose an "auto-approve sensitive
	// edits" switch. Reading
	// secrets, hard-linked files and every command still need approval.
	AutoApproveSensitiveEdits bool
	// SecretScanLimit bounds how many directory entries are searched for
	// secrets when a command reads a tree recursively (`grep -r x .`);
	// a larger tree needs approval. Zero means 10000.
	SecretScanLimit int
	// Logger receives one record per assessment; default: none.
	Logger *slog.Logger
}

// Action is one thing an agent wants to do: run Command in Dir, or access
// Paths with a file tool. Set one of Command or Paths.
type Action struct {
	Tool    string   // tool name, for reasons and logs ("run_command", "write_file")
	Command string   // a shell command line
	Dir     string   // the command's working directory; "" is the workspace root
	Paths   []PathOp // the file tool's accesses (a rename is a write of both ends)
}

// PathOp is one access of a file tool.
type PathOp struct {
	Path string
	Op   Op
}

// Assessment is the policy's decision on one action.
type Assessment struct {
	Decision Decision `json:"decision"`
	// Reasons explain the decision, the ones that decided it first.
	Reasons []string `json:"reasons"`
	// Severity of the command (SeverityNone for file actions).
	Severity Severity `json:"severity"`
	// Command is the rules' verdict, with the full analysis, for commands.
	Command *CommandVerdict `json:"command,omitempty"`
	// Paths holds every path check made: the working directory, the
	// command's files, or the file tool's paths.
	Paths []PathCheck `json:"paths,omitempty"`
	// Headless is true when a Confirm was turned into Deny for lack of a
	// human.
	Headless bool `json:"headless,omitempty"`
}

// RiskLevel names the decision as a risk level for wire formats and logs:
// "none" (Allow), "confirm" or "deny".
func (a Assessment) RiskLevel() string {
	switch a.Decision {
	case Allow:
		return "none"
	case Confirm:
		return "confirm"
	}
	return "deny"
}

// Reason joins Reasons into one line for a prompt or a log.
func (a Assessment) Reason() string { return strings.Join(a.Reasons, "; ") }

// signals accumulates decisions with their reasons; the strictest wins.
type signals struct {
	level   Decision
	reasons [Deny + 1][]string // by Decision
}

func (s *signals) add(d Decision, reason string) {
	s.level = max(s.level, d)
	if reason != "" {
		s.reasons[d] = append(s.reasons[d], reason)
	}
}

// ordered lists the deciding reasons first, then the lesser ones.
func (s *signals) ordered() []string {
	var out []string
	for d := Deny; d >= Allow; d-- {
		out = append(out, s.reasons[d]...)
	}
	return out
}

// Assess decides one action.
func (p *Policy) Assess(ctx context.Context, a Action) Assessment {
	s := signals{level: Allow} // an action nothing objects to is allowed
	var as Assessment
	switch {
	case a.Command != "" && len(a.Paths) > 0:
		s.add(Deny, "an action is either a command or file accesses, not both")
	case a.Command != "":
		p.assessCommand(&s, &as, a)
	case len(a.Paths) > 0:
		p.assessFiles(&s, &as, a)
	default:
		s.add(Deny, "empty action: no command and no paths")
	}
	as.Decision = s.level
	as.Reasons = s.ordered()
	if p.Headless && as.Decision == Confirm {
		as.Decision, as.Headless = Deny, true
		as.Reasons = append([]string{"denied: needs a human's approval and none is available (headless)"}, as.Reasons...)
	}
	p.log(ctx, a, as)
	return as
}

// AssessCommand is Assess for a shell command run in dir.
func (p *Policy) AssessCommand(ctx context.Context, command, dir string) Assessment {
	return p.Assess(ctx, Action{Command: command, Dir: dir})
}

// AssessFile is Assess for one file tool access.
func (p *Policy) AssessFile(ctx context.Context, path string, op Op) Assessment {
	return p.Assess(ctx, Action{Paths: []PathOp{{Path: path, Op: op}}})
}

func (p *Policy) assessFiles(s *signals, as *Assessment, a Action) {
	if p.Workspace == nil {
		s.add(Deny, "no workspace is configured, so no file can be confined; open one with OpenWorkspace")
		return
	}
	for _, po := range a.Paths {
		pc := p.Workspace.Check(po.Path, po.Op)
		as.Paths = append(as.Paths, pc)
		d := pc.Decision
		if d == Confirm && po.Op == OpWrite && p.AutoApproveSensitiveEdits && pc.Sensitive && !pc.HardLinked {
			s.add(Allow, pc.Reason+"; auto-approved (AutoApproveSensitiveEdits)")
			continue
		}
		s.add(d, pc.Reason)
		p.hardLinkedSecret(s, pc, po.Op, "")
		p.linkedOutside(s, pc, po.Op, "")
	}
}

func (p *Policy) assessCommand(s *signals, as *Assessment, a Action) {
	v := p.Rules.Evaluate(a.Command)
	as.Command, as.Severity = &v, v.Severity
	switch {
	case v.Decision == Deny:
		s.add(Deny, strings.Join(v.Reasons, "; "))
	case v.Severity >= SeverityCritical && p.DenyCritical:
		s.add(Deny, "critical command denied by policy: "+strings.Join(v.Reasons, "; "))
	default:
		s.add(v.Decision, strings.Join(v.Reasons, "; "))
	}

	if p.Workspace == nil {
		if len(v.Analysis.Paths) > 0 || a.Dir != "" {
			s.add(Confirm, "no workspace is configured, so the files this command names cannot be checked")
		}
		return
	}
	dir := a.Dir
	if dir == "" {
		dir = "."
	}
	cwd := p.Workspace.Check(dir, OpChdir)
	as.Paths = append(as.Paths, cwd)
	if cwd.Decision == Deny {
		s.add(Deny, "working directory: "+cwd.Reason)
		return
	}
	if cwd.Decision == Confirm {
		s.add(Confirm, "working directory: "+cwd.Reason)
	}

	// Relative paths are judged against the working directory and against
	// every directory the line changes into (`cd sub && cat x` reads
	// sub/x); without tracking control flow, the strictest verdict counts.
	bases := []string{cwd.Resolved}
	for _, pa := range v.Analysis.Paths {
		if pa.Op == OpChdir {
			if pc := p.Workspace.Check(joinBase(cwd.Resolved, pa.Path), OpChdir); pc.Decision != Deny {
				bases = append(bases, pc.Resolved)
			}
		}
	}
	p.runtimePaths(s, v.Analysis)
	p.recursiveSecrets(s, v.Analysis, bases)
	p.foreignRepos(s, v.Analysis, bases)
	seen := map[string]bool{}
	for _, pa := range v.Analysis.Paths {
		if skipCommandPath(pa.Path) {
			continue
		}
		for _, base := range bases {
			for _, target := range expandCommandPath(base, pa.Path) {
				key := target + "\x00" + pa.Op.String()
				if seen[key] {
					continue
				}
				seen[key] = true
				p.commandPath(s, as, v.Analysis, pa, target)
			}
		}
	}
}

// commandPath judges one file a command touches. Unlike a file tool, a
// command may legitimately name paths outside the workspace (`cat
// /usr/include/stdio.h`), so those need approval rather than a denial;
// severity has already ranked writes to system locations.
func (p *Policy) commandPath(s *signals, as *Assessment, an CommandAnalysis, pa PathAccess, target string) {
	pc := p.Workspace.Check(target, pa.Op)
	as.Paths = append(as.Paths, pc)
	who := "the command"
	if pa.Command >= 0 && pa.Command < len(an.Commands) {
		who = an.Commands[pa.Command].Name
	}
	if pa.Op == OpChdir && errors.Is(pc.Err, ErrNotDirectory) {
		return // `mkdir build && cd build`: a cd that fails harms nothing
	}
	if pc.Decision != Allow {
		s.add(Confirm, fmt.Sprintf("%s %s %s: %s", who, accessVerb(pa.Op), pa.Path, pc.Reason))
	}
	p.hardLinkedSecret(s, pc, pa.Op, who+" ")
	p.linkedOutside(s, pc, pa.Op, who+" ")
}

// runtimeArg stands in for an argument whose value is known only at run
// time, so that the analysis can say whether that position is a file.
const runtimeArg = "__tether_runtime_value__"

// runtimePaths handles `f=.env; cat "$f"` and `cat $(echo .env)`: the file
// is named only at run time, so no check can see it. Each sub-command with
// such arguments is analysed again with a placeholder in their place; if
// the placeholder comes out as a file the command reads or writes, the
// line needs approval.
func (p *Policy) runtimePaths(s *signals, an CommandAnalysis) {
	for _, c := range an.Commands {
		if !c.Dynamic || strings.ContainsAny(c.Name, "$`") {
			continue // a dynamic command name is the analysis' concern
		}
		var b strings.Builder
		b.WriteString(shellQuote(c.Name))
		var dyn []string
		for i, a := range c.Args {
			b.WriteByte(' ')
			if i+1 < len(c.words) && c.words[i+1].files != nil {
				// A loop variable or a file listing: the analysis recorded
				// the patterns it can be, and those are checked as paths.
				b.WriteString("listed-file")
				continue
			}
			if strings.ContainsAny(a, "$`") {
				b.WriteString(runtimeArg)
				dyn = append(dyn, a)
			} else {
				b.WriteString(shellQuote(a))
			}
		}
		probe := AnalyzeCommand(b.String())
		for _, pa := range probe.Paths {
			if strings.Contains(pa.Path, runtimeArg) {
				s.add(Confirm, fmt.Sprintf("%s %s a file named only at run time (%s); it cannot be checked before running",
					c.Name, accessVerb(pa.Op), strings.Join(dyn, " ")))
				break
			}
		}
	}
}

// shellQuote quotes s as one literal shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func accessVerb(op Op) string {
	switch op {
	case OpRead:
		return "reads"
	case OpWrite:
		return "writes"
	}
	return "changes into"
}

// skipCommandPath leaves out names that are not files in the workspace:
// stdin/stdout dashes and the harmless devices.
func skipCommandPath(p string) bool {
	switch p {
	case "", "-", "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// joinBase makes p absolute against base unless it already is or starts
// with "~" or "file:", which Check expands itself. Concatenation, not
// filepath.Join, so ".." is resolved by Check through symlinks.
func joinBase(base, p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "file:") {
		return p
	}
	return base + string(filepath.Separator) + p
}

// maxGlobMatches bounds how many files one unquoted glob is checked for.
const maxGlobMatches = 1000

// expandCommandPath returns the files a command argument can name. The
// shell expands unquoted globs before the command runs, so `cat .e*`
// reads .env: a pattern is expanded the way the shell would, and also
// checked as written (what the command gets when nothing matches).
func expandCommandPath(base, p string) []string {
	full := joinBase(base, p)
	out := []string{full}
	if !strings.ContainsAny(p, "*?[") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "file:") {
		return out
	}
	var matches []string
	var err error
	if strings.Contains(p, "**") {
		// rg -g, grep --include and find -name select files at any depth.
		matches, err = doublestar.FilepathGlob(full)
	} else {
		matches, err = filepath.Glob(full)
	}
	if err != nil {
		return out
	}
	if len(matches) > maxGlobMatches {
		matches = matches[:maxGlobMatches]
	}
	return append(out, matches...)
}

func (p *Policy) log(ctx context.Context, a Action, as Assessment) {
	if p.Logger == nil {
		return
	}
	level := slog.LevelInfo
	if as.Decision == Deny {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("decision", as.Decision.String()),
		slog.String("risk_level", as.RiskLevel()),
		slog.Any("reasons", as.Reasons),
	}
	if a.Tool != "" {
		attrs = append(attrs, slog.String("tool", a.Tool))
	}
	if a.Command != "" {
		attrs = append(attrs, slog.String("command", a.Command), slog.String("severity", as.Severity.String()))
	}
	for _, po := range a.Paths {
		attrs = append(attrs, slog.String(po.Op.String(), po.Path))
	}
	p.Logger.LogAttrs(ctx, level, "safety: policy decision", attrs...)
}
