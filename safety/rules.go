package safety

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// CommandRules decide which commands run without asking.
//
// A rule is a whitespace-separated token prefix matched at word boundaries
// against each sub-command after quote removal: "ls" matches `ls -la` but not
// `lsof`; "npm run test" does not match `npm run test:unit`; "git status" does
// not cover `git push`. An entry may hold several rules separated by commas
// ("ls,pwd,git status", the comma-separated allow-list format editor agents
// store in one setting), and a trailing " *" or ":*" is accepted and ignored
// ("git log *", "git log:*"), as is Claude Code's Bash(…) spelling
// ("Bash(npm run test:*)"). The rule "*" matches every command.
//
// Allow rules match the command name as written: "/bin/rm" is not "rm".
// Options the analyser's model of the command knows may stand between an
// allow rule's words ("make test" covers `make -C sub test`, since the
// rule accepts -C after "test" anyway, and "git log" covers git's
// harmless global options, `git --no-pager log`); a rule's NAME=value
// assignments must be on the command with the same value ("DRY_RUN=1
// make deploy" does not cover `make deploy`).
// Deny and ask rules also match the base name, so a deny rule "rm" stops
// `/bin/rm` too, and they see through option spelling: options the rule
// does not name may stand between its words ("git push" denies `git -C .
// push`), and a short-option cluster matches its letters in any order or
// spelt apart ("rm -rf" denies `rm -r -f`, `rm -fr`, `rm -Rf`).
//
// A rule approves only the options it understands. For the commands the
// analyser has an option model of (make, go, pytest, npm, cargo, ls,
// grep, rg, diff, less, sort, date and the other inspection commands),
// every option must be known to be harmless, or be named by the rule:
// "make test" does not approve `make test --eval=…`, "python3" does not
// approve `python3 -c …`, "python3 -c" does (see Command.Unvetted). The
// same goes for environment assignments: a variable not known to be
// harmless must appear in the rule ("NODE_ENV=staging npm test"). A rule
// naming a runner and its tool ("npx prettier", "uv run pytest", "bundle
// exec rspec") also covers the tool the runner starts.
//
// Rules judge effects as well as words (see Effect and rules_effects.go):
// a deny or ask rule whose options add an effect ("git push --force"
// rewrites remote history) matches that effect however it is spelt (`git
// push origin +main`, `--force-with-lease`, `--mirror`, `--forc`); an
// allow rule approves a high or critical effect only when its own words
// have it ("gh auth" does not approve `gh auth token`, which prints a
// credential); and "effect:NAME" names an effect outright ("deny:
// effect:force-push", "ask: git effect:discards-work"). A rule naming an
// unknown effect matches nothing, and while one is configured nothing is
// approved (Validate reports it).
//
// Precedence is deny → ask → allow. Auto-approval is all-or-nothing:
// every sub-command must be allowed (transparent wrappers such as timeout
// or nice are exempt, opaque ones such as sudo or xargs need their own
// rule), and the line must have nothing critical and no concern that
// forbids auto-approval (see Concern.NoAutoApprove). An allow rule may
// approve a high command only when the command its own words spell has
// each high effect: "rm" approves `rm -r dist` (deleting is what rm
// does), "chmod" does not approve `chmod 777 script.sh` (loosening
// permissions is not), "chmod 777" does; critical commands are never
// approved by any rule.
//
// The zero value approves nothing: every command needs a human.
type CommandRules struct {
	Allow, Ask, Deny []string

	// AllowReadOnly approves sub-commands the analysis rates none
	// (ls, cat, git status …) without a rule, when they are invoked by
	// bare name (`./cat` is a program in the workspace, not cat) and
	// every option is known to be harmless.
	AllowReadOnly bool

	// Logger, when set, receives one record per verdict.
	Logger *slog.Logger
}

// CommandVerdict is the outcome of CommandRules.Evaluate.
type CommandVerdict struct {
	// Decision is Allow when the command is auto-approved, Deny when a
	// deny rule matched, Confirm otherwise.
	Decision Decision `json:"decision"`
	// AutoApproved is Decision == Allow.
	AutoApproved bool `json:"auto_approved"`
	// Denied is true when a deny rule matched some sub-command.
	Denied bool `json:"denied"`
	// Severity is the analysis' severity.
	Severity Severity `json:"severity"`
	// Reasons explain the decision, naming the sub-commands and rules
	// that decided, then the analysis' concerns.
	Reasons []string `json:"reasons"`
	// Matches says, for each sub-command, which rule matched.
	Matches []RuleMatch `json:"matches"`
	// Analysis is the full analysis the verdict was computed from.
	Analysis CommandAnalysis `json:"analysis"`
}

// RuleMatch records how one sub-command fared against the rules.
type RuleMatch struct {
	Command int    `json:"command"` // index into Analysis.Commands
	Text    string `json:"text"`    // the sub-command as text
	// List is "deny", "ask" or "allow" for the list whose rule matched,
	// "transparent" for an exempt wrapper, "read-only" when AllowReadOnly
	// approved it, or "" when nothing matched.
	List string `json:"list"`
	Rule string `json:"rule,omitempty"` // the matching rule as configured
}

// rule is one parsed rule.
type rule struct {
	text   string
	tokens []string
	// assigns are NAME=value words in front of the command
	// ("NODE_ENV=test npm test"): they cover those assignments.
	assigns []string
	// effects are the effects its effect: words name ("*" for all);
	// bad is set when one names no effect, and the rule matches nothing.
	effects []Effect
	bad     error
}

func parseRules(entries []string) []rule {
	var out []rule
	for _, e := range entries {
		for _, r := range strings.Split(e, ",") {
			r = strings.TrimSpace(r)
			// Claude Code's settings spell rules Bash(npm run test:*).
			if inner, ok := strings.CutPrefix(r, "Bash("); ok && strings.HasSuffix(inner, ")") {
				r = strings.TrimSpace(strings.TrimSuffix(inner, ")"))
			}
			body := strings.TrimSuffix(strings.TrimSuffix(r, ":*"), " *")
			body = strings.TrimSpace(body)
			if r == "" {
				continue
			}
			toks := strings.Fields(body)
			if body == "*" {
				toks = nil
			}
			var assigns []string
			for len(toks) > 1 {
				name, _, ok := strings.Cut(toks[0], "=")
				if !ok || !isName(name) {
					break
				}
				assigns, toks = append(assigns, toks[0]), toks[1:]
			}
			toks, effects, bad := splitEffects(toks)
			out = append(out, rule{text: r, tokens: toks, assigns: assigns, effects: effects, bad: bad})
		}
	}
	return out
}

// match reports whether r covers the words of a command. When base is
// set the first token may also equal the command's base name.
func (r rule) match(ws []word, base bool) bool {
	if len(r.tokens) > len(ws) || r.bad != nil || len(r.tokens) == 0 && len(r.effects) > 0 {
		return false
	}
	for i, t := range r.tokens {
		if !r.tokenIs(i, t, ws[i], base) {
			return false
		}
	}
	return true
}

// tokenIs reports whether word w stands where the rule's token t (its
// i-th) does.
func (r rule) tokenIs(i int, t string, w word, base bool) bool {
	switch {
	case w.dynamic:
		return false
	case w.s == t || strings.HasPrefix(t, "--") && strings.HasPrefix(w.s, t+"="):
		return true // a rule naming --opt covers --opt=value
	}
	return i == 0 && base && commandBase(w.s) == strings.ToLower(t)
}

// matchAllow reports whether allow rule r names command c, whose words
// are ws. Two things beyond a plain prefix:
//
//   - Options the command's model knows may stand between the rule's
//     words, with their values: "make test" names `make -C sub test` and
//     `make -j 4 test`, "git log" names `git --no-pager log`. Such an
//     option is accepted before the rule's words exactly when it would be
//     accepted after them (see Command.Unvetted), so moving it changes
//     nothing the rule's author did not already accept. Options of
//     commands without a model, and options the model does not know,
//     never interleave: nothing says whether they take the next word.
//   - A rule's assignments must be the command's own, with the same value
//     as written: "DRY_RUN=1 make deploy" does not name `make deploy`,
//     which means something else. ownAssigns is false for the command a
//     runner starts (npx, uv run), whose runner carried the assignments.
func (r rule) matchAllow(c Command, ws []word, ownAssigns bool) bool {
	if r.bad != nil || len(r.tokens) == 0 && len(r.effects) > 0 {
		return false // a rule of effect: words alone names no command
	}
	if ownAssigns {
		for _, as := range r.assigns {
			if !slices.Contains(c.assigns, as) {
				return false
			}
		}
	}
	j := 0
	for i, t := range r.tokens {
		for ; j < len(ws) && !r.tokenIs(i, t, ws[j], false); j += int(c.spans[j]) {
			if i == 0 || c.spans == nil || c.spans[j] == 0 {
				return false
			}
		}
		if j >= len(ws) {
			return false
		}
		j++
	}
	return true
}

// covers reports whether the rule names every unvetted option of c: a
// rule "python3 -c" covers `python3 -c 'print(1)'`, a rule "python3" does
// not.
func (r rule) covers(c Command) bool {
	for _, u := range c.Unvetted {
		if !r.names(u.Option) {
			return false
		}
	}
	return true
}

// names reports whether one of the rule's words is option (as written,
// or its name before "=" or a space).
func (r rule) names(option string) bool {
	name, _, _ := strings.Cut(option, " ")
	short, _, _ := strings.Cut(name, "=")
	for _, t := range r.tokens {
		if t == option || t == name || t == short {
			return true
		}
	}
	for _, as := range r.assigns {
		if as == option {
			return true
		}
	}
	return false
}

// uncovered describes the unvetted options of c that r does not name.
func uncovered(r rule, c Command) string {
	var parts []string
	for _, u := range c.Unvetted {
		if !r.names(u.Option) {
			parts = append(parts, fmt.Sprintf("%s (%s)", u.Option, u.Reason))
		}
	}
	return strings.Join(parts, ", ")
}

// carried reports whether the allow rule that approved c's wrapper also
// names c: a rule "npx prettier" matched `npx prettier --check .` and
// carries to the prettier it runs, "uv run pytest" to pytest, "bundle exec
// rspec" to rspec. The rule's words after the runner's own must be a
// prefix of c's words, and c's unvetted options must be named too.
func carried(allowedBy []*rule, c Command, ws []word) (rule, bool) {
	if c.Parent < 0 || c.Parent >= len(allowedBy) || allowedBy[c.Parent] == nil {
		return rule{}, false
	}
	r := *allowedBy[c.Parent]
	for k := 1; k < len(r.tokens); k++ {
		inner := rule{text: r.text, tokens: r.tokens[k:], assigns: r.assigns}
		if inner.tokens[0] == ws[0].s && inner.matchAllow(c, ws, false) && inner.covers(c) {
			return r, true
		}
	}
	return rule{}, false
}

// firstAllow is the first allow rule that names command i of a (see
// matchAllow) and covers it fully, its options and its effects; failing
// that, the first that names it, whose shortfall the verdict explains.
func firstAllow(rules []rule, a CommandAnalysis, i int, ws []word) (rule, bool) {
	c := a.Commands[i]
	var first *rule
	for k, r := range rules {
		if r.bad != nil || !r.matchAllow(c, ws, true) {
			continue
		}
		if r.covers(c) && r.unnamedEffect(a, i) == "" {
			return r, true
		}
		if first == nil {
			first = &rules[k]
		}
	}
	if first != nil {
		return *first, true
	}
	return rule{}, false
}

func firstMatch(rules []rule, c Command, ws []word, base bool) (rule, bool) {
	for _, r := range rules {
		if len(r.effects) > 0 {
			// A rule naming effects matches only commands that have them.
			if base && r.matchEffects(c, ws) {
				return r, true
			}
			continue
		}
		if r.match(ws, base) {
			return r, true
		}
		if !base {
			continue
		}
		if len(r.addedEffects()) > 0 {
			// Options that add an effect match by that effect, not by
			// their letters: "git branch -D" denies --delete --force,
			// not git branch -d.
			if r.matchEffects(c, ws) {
				return r, true
			}
			continue
		}
		if r.matchLoose(ws) {
			return r, true
		}
	}
	return rule{}, false
}

// Evaluate analyses cmd and applies the rules to it.
func (r CommandRules) Evaluate(cmd string) CommandVerdict {
	return r.EvaluateAnalysis(AnalyzeCommand(cmd))
}

// EvaluateAnalysis applies the rules to an analysis already made.
func (r CommandRules) EvaluateAnalysis(a CommandAnalysis) CommandVerdict {
	deny, ask, allow := parseRules(r.Deny), parseRules(r.Ask), parseRules(r.Allow)
	v := CommandVerdict{Severity: a.Severity, Analysis: a, Decision: Confirm}
	var denied, asked, unmatched []string
	for _, rs := range [][]rule{deny, ask, allow} {
		for _, rl := range rs {
			if rl.bad != nil {
				unmatched = append(unmatched, fmt.Sprintf("rule %q is invalid, so nothing is approved until it is fixed: %v", rl.text, rl.bad))
			}
		}
	}
	allowedBy := make([]*rule, len(a.Commands)) // the allow rule each command matched
	for i, c := range a.Commands {
		m := RuleMatch{Command: i, Text: c.String()}
		ws := c.words
		if len(ws) == 0 {
			ws = []word{{s: c.Name}}
		}
		if rl, ok := firstMatch(deny, c, ws, true); ok {
			m.List, m.Rule = "deny", rl.text
			denied = append(denied, fmt.Sprintf("%s: denied by rule %q", m.Text, rl.text))
		} else if rl, ok := firstMatch(ask, c, ws, true); ok {
			m.List, m.Rule = "ask", rl.text
			asked = append(asked, fmt.Sprintf("%s: needs approval by rule %q", m.Text, rl.text))
		} else if rl, ok := firstAllow(allow, a, i, ws); ok && rl.covers(c) && rl.unnamedEffect(a, i) == "" {
			m.List, m.Rule = "allow", rl.text
			allowedBy[i] = &rl
		} else if ok && rl.covers(c) {
			unmatched = append(unmatched, fmt.Sprintf("%s: rule %q does not name its effect %s (add a rule naming it, e.g. %q)", m.Text, rl.text, rl.unnamedEffect(a, i), rl.text+" effect:"+string(rl.unnamedEffect(a, i))))
		} else if outer, carries := carried(allowedBy, c, ws); carries && outer.unnamedEffect(a, i) == "" {
			// npx prettier, uv run pytest: the runner's rule names the tool.
			m.List, m.Rule = "allow", outer.text
		} else if ok {
			unmatched = append(unmatched, fmt.Sprintf("%s: rule %q does not cover %s", m.Text, rl.text, uncovered(rl, c)))
		} else if c.Wrapper == Transparent && len(c.Unvetted) == 0 && c.Severity == SeverityNone {
			m.List = "transparent"
		} else if r.AllowReadOnly && c.Severity == SeverityNone && c.Wrapper == NotWrapper && !strings.Contains(c.Name, "/") && len(c.Unvetted) == 0 {
			m.List = "read-only"
		} else if r.AllowReadOnly && c.Severity == SeverityNone && len(c.Unvetted) > 0 {
			unmatched = append(unmatched, fmt.Sprintf("%s: not read-only: %s", m.Text, uncovered(rule{}, c)))
		} else {
			unmatched = append(unmatched, fmt.Sprintf("%s: no allow rule matches", m.Text))
		}
		v.Matches = append(v.Matches, m)
	}
	switch {
	case len(denied) > 0:
		v.Decision, v.Denied = Deny, true
		v.Reasons = append(v.Reasons, denied...)
	case a.Severity >= SeverityCritical:
		v.Reasons = append(v.Reasons, "critical commands always need approval; no rule can allow them")
	case len(asked) > 0:
		v.Reasons = append(v.Reasons, asked...)
	case len(a.Commands) == 0 && len(a.Concerns) == 0:
		v.Reasons = append(v.Reasons, "no command to run")
	case len(unmatched) > 0:
		v.Reasons = append(v.Reasons, unmatched...)
	case !a.AutoApprovable():
		v.Reasons = append(v.Reasons, "every sub-command matches a rule, but the line does something no rule can approve:")
	default:
		v.Decision, v.AutoApproved = Allow, true
		for _, m := range v.Matches {
			switch m.List {
			case "allow":
				v.Reasons = append(v.Reasons, fmt.Sprintf("%s: allowed by rule %q", m.Text, m.Rule))
			case "read-only":
				v.Reasons = append(v.Reasons, fmt.Sprintf("%s: read-only", m.Text))
			}
		}
	}
	v.Reasons = append(v.Reasons, a.Reasons()...)
	if r.Logger != nil {
		r.Logger.LogAttrs(context.Background(), slog.LevelInfo, "safety: command verdict",
			slog.String("command", a.Input), slog.String("decision", v.Decision.String()),
			slog.String("severity", v.Severity.String()), slog.Any("reasons", v.Reasons))
	}
	return v
}
