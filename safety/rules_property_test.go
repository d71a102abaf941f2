package safety

import (
	"fmt"
	"strings"
	"testing"
)

// TestNoRuleApprovesCritical: for every critical command of the golden
// corpus, no allow rule approves it: not "*", not a rule naming each of
// its sub-commands, not the whole line as a rule.
func TestNoRuleApprovesCritical(t *testing.T) {
	n := 0
	for _, c := range loadAnalysisCases(t) {
		if c.severity != SeverityCritical {
			continue
		}
		n++
		a := AnalyzeCommand(c.cmd)
		var names []string
		for _, x := range a.Commands {
			names = append(names, x.String())
		}
		for _, rules := range []CommandRules{
			{Allow: []string{"*"}, AllowReadOnly: true},
			{Allow: names, AllowReadOnly: true},
			{Allow: []string{strings.Join(strings.Fields(c.cmd), " ")}},
		} {
			if v := rules.EvaluateAnalysis(a); v.AutoApproved {
				t.Errorf("%s:%d: %q approved by %q", c.file, c.line, c.cmd, rules.Allow)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d critical cases", n)
	}
}

// approvedBases are commands with an option model, each approved as
// written by the rule beside it.
var approvedBases = []struct{ rule, cmd string }{
	{"make test", "make test"}, {"go test", "go test ./..."}, {"go build", "go build ./..."},
	{"pytest", "pytest tests"}, {"npm test", "npm test"}, {"cargo test", "cargo test"},
	{"less", "less README.md"}, {"diff", "diff a b"}, {"rg", "rg TODO"}, {"grep", "grep TODO f"},
	{"ls", "ls src"}, {"cat", "cat f"}, {"head", "head f"}, {"sort", "sort f"}, {"date", "date"},
	{"du", "du ."}, {"tree", "tree"}, {"wc", "wc f"}, {"jq", "jq . f"},
	{"git log", "git log"}, {"git diff", "git diff"}, {"git show", "git show HEAD"}, {"git status", "git status"},
	{"git grep", "git grep TODO"}, {"git blame", "git blame f"}, {"git branch", "git branch"},
	{"git ls-files", "git ls-files"}, {"git rev-parse", "git rev-parse HEAD"}, {"git tag", "git tag"},
}

// TestAddedOptionsNeedVetting: adding an option to an approved command
// keeps it approved only when the option is known to be harmless for it.
// Every option of every model is tried, plus options no model knows.
func TestAddedOptionsNeedVetting(t *testing.T) {
	unknown := [][]string{{"--frobnicate"}, {"--eval=x"}, {"-%"}, {"--config=/tmp/x"}, {"--pre=sh"}, {"--output=/etc/x"}, {"--lesskey-file", "k"}}
	for _, b := range approvedBases {
		for _, ro := range []bool{false, true} {
			rules := CommandRules{Allow: []string{b.rule}}
			if ro {
				rules = CommandRules{AllowReadOnly: true}
			}
			base := rules.Evaluate(b.cmd)
			if !base.AutoApproved {
				if !ro {
					t.Errorf("base case %q under %q not approved: %q", b.cmd, b.rule, base.Reasons)
				}
				continue
			}
			words := strings.Fields(b.cmd)
			m, _ := optionModelFor(commandBase(words[0]), wordsOf(words[1:]))
			if words[0] == "git" {
				m = gitModels[words[1]]
			}
			name := strings.Join(words[:len(strings.Fields(b.rule))], " ")
			if m == nil {
				t.Fatalf("%s has no option model", name)
			}
			try := func(opt []string, harmless bool) {
				cmd := b.cmd
				for _, o := range opt {
					cmd += " " + quoteArg(o)
				}
				v := rules.Evaluate(cmd)
				if v.AutoApproved && !harmless {
					t.Errorf("%q (read-only %v, rule %q) approved with %s: %q", cmd, ro, b.rule, opt, v.Reasons)
				}
				if !v.AutoApproved && harmless && !ro {
					t.Errorf("%q (rule %q) refused with harmless %s: %q", cmd, b.rule, opt, v.Reasons)
				}
			}
			for _, opt := range unknown {
				try(opt, false)
			}
			for spelling, kind := range m.ready().opts {
				switch kind {
				case optFlag:
					try([]string{spelling}, true)
				case optText:
					try(withValue(spelling, "3", m), true)
				case optProgram, optCode, optConfig, optUnsafe:
					try(withValue(spelling, "x", m), false)
				case optWrite:
					try(withValue(spelling, "/home/u/.bashrc", m), false)
				}
			}
		}
	}
}

func quoteArg(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// withValue spells an option with its value as the command reads it.
func withValue(spelling, v string, m *optionModel) []string {
	if m.goStyle || strings.HasPrefix(spelling, "--") {
		return []string{spelling + "=" + v}
	}
	return []string{spelling, v}
}

func wordsOf(ss []string) []word {
	out := make([]word, len(ss))
	for i, s := range ss {
		out[i] = word{s: s}
	}
	return out
}

func ExampleCommand_unvetted() {
	v := CommandRules{Allow: []string{"make test"}}.Evaluate("make test --eval='$(shell id)'")
	fmt.Println(v.Decision)
	for _, u := range v.Analysis.Commands[0].Unvetted {
		fmt.Println(u.Option+":", u.Reason)
	}
	// Output:
	// confirm
	// --eval=$(shell id): runs inline code, which no rule for make alone covers
}

// TestOptionsBeforeRuleWords: an option standing between an allow rule's
// words is approved only if the same option after them is: moving an
// option never gains an approval (git's harmless global options, which
// belong before the sub-command, aside). Every option of every model is
// tried right after the command name, plus options no model knows.
func TestOptionsBeforeRuleWords(t *testing.T) {
	moved := 0
	for _, b := range approvedBases {
		ruleWords := strings.Fields(b.rule)
		if len(ruleWords) < 2 {
			continue
		}
		words := strings.Fields(b.cmd)
		m, _ := optionModelFor(commandBase(words[0]), wordsOf(words[1:]))
		if words[0] == "git" {
			m = gitModels[words[1]]
		}
		var opts [][]string
		for spelling, kind := range m.ready().opts {
			if kind.takesValue() {
				opts = append(opts, withValue(spelling, "3", m))
			} else {
				opts = append(opts, []string{spelling})
			}
		}
		opts = append(opts, []string{"--frobnicate"}, []string{"-C", "sub"}, []string{"--no-pager"}, []string{"-f", "x"})
		rules := CommandRules{Allow: []string{b.rule}}
		for _, opt := range opts {
			quoted := make([]string, len(opt))
			for i, o := range opt {
				quoted[i] = quoteArg(o)
			}
			before := words[0] + " " + strings.Join(quoted, " ") + " " + strings.Join(words[1:], " ")
			after := b.cmd + " " + strings.Join(quoted, " ")
			vb, va := rules.Evaluate(before), rules.Evaluate(after)
			if words[0] == "git" && gitHarmlessGlobal[opt[0]] {
				// git's own harmless global options belong before the
				// sub-command, and only there.
				if !vb.AutoApproved {
					t.Errorf("rule %q refuses %q: %q", b.rule, before, vb.Reasons)
				}
				continue
			}
			if vb.AutoApproved && !va.AutoApproved {
				t.Errorf("rule %q approves %q but not %q", b.rule, before, after)
			}
			if vb.AutoApproved {
				moved++
			}
		}
	}
	if moved == 0 {
		t.Error("no option was approved before a rule's words: the property proves nothing")
	}
}
