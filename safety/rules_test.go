package safety

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCommandRulesGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/commands/rules*.txt")
	if err != nil || len(files) < 2 {
		t.Fatalf("rule golden files: %v %v", files, err)
	}
	cases := 0
	for _, name := range files {
		cases += checkRulesFile(t, name)
	}
	if cases < 250 {
		t.Errorf("only %d rule cases", cases)
	}
}

// checkRulesFile runs the cases of one rules golden file and returns
// how many there were.
func checkRulesFile(t *testing.T, name string) int {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file := filepath.Base(name)
	var rules CommandRules
	sc := bufio.NewScanner(f)
	n, cases := 0, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "---":
			rules = CommandRules{}
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		val = strings.TrimSpace(val)
		switch key {
		case "allow:":
			rules.Allow = append(rules.Allow, val)
			continue
		case "ask:":
			rules.Ask = append(rules.Ask, val)
			continue
		case "deny:":
			rules.Deny = append(rules.Deny, val)
			continue
		case "readonly:":
			rules.AllowReadOnly = val == "true"
			continue
		}
		var want Decision
		if err := want.UnmarshalText([]byte(key)); err != nil {
			t.Fatalf("%s:%d: %v", file, n, err)
		}
		cmd := val
		if strings.HasPrefix(cmd, `"`) {
			if cmd, err = strconv.Unquote(val); err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
		}
		cases++
		v := rules.Evaluate(cmd)
		if v.Decision != want {
			t.Errorf("%s:%d: %q with allow=%q ask=%q deny=%q readonly=%v\n got %s, want %s\n reasons: %q",
				file, n, cmd, rules.Allow, rules.Ask, rules.Deny, rules.AllowReadOnly, v.Decision, want, v.Reasons)
		}
		if v.AutoApproved != (v.Decision == Allow) || v.Denied != (v.Decision == Deny) {
			t.Errorf("%s:%d: inconsistent verdict %+v", file, n, v)
		}
		if len(v.Matches) != len(v.Analysis.Commands) {
			t.Errorf("%s:%d: %d matches for %d commands", file, n, len(v.Matches), len(v.Analysis.Commands))
		}
	}
	return cases
}

func TestVerdictReasonsNameRuleAndCommand(t *testing.T) {
	r := CommandRules{Allow: []string{"ls"}, Deny: []string{"rm"}}
	v := r.Evaluate("ls && rm -rf build")
	if !v.Denied || v.Decision != Deny {
		t.Fatalf("want deny, got %+v", v)
	}
	if !strings.Contains(v.Reasons[0], `rm -rf build: denied by rule "rm"`) {
		t.Errorf("first reason %q does not name the sub-command and rule", v.Reasons[0])
	}
	if v.Matches[0].List != "allow" || v.Matches[0].Rule != "ls" || v.Matches[1].List != "deny" {
		t.Errorf("matches = %+v", v.Matches)
	}

	v = CommandRules{Allow: []string{"ls"}}.Evaluate("ls && git push")
	if v.AutoApproved || !strings.Contains(strings.Join(v.Reasons, "\n"), "git push: no allow rule matches") {
		t.Errorf("reasons = %q", v.Reasons)
	}
	v = CommandRules{Allow: []string{"git status", "ls"}}.Evaluate("git status && ls -la")
	if !v.AutoApproved || len(v.Reasons) != 2 || !strings.Contains(v.Reasons[0], `allowed by rule "git status"`) {
		t.Errorf("reasons = %q", v.Reasons)
	}
}

func TestEvaluateLogsDecision(t *testing.T) {
	var buf bytes.Buffer
	r := CommandRules{Allow: []string{"ls"}, Logger: slog.New(slog.NewTextHandler(&buf, nil))}
	r.Evaluate("ls; rm -rf ~")
	out := buf.String()
	for _, want := range []string{"decision=confirm", "severity=critical", "rm -rf ~"} {
		if !strings.Contains(out, want) {
			t.Errorf("log %q lacks %q", out, want)
		}
	}
}

// TestEverydayCorpus checks the acceptance figures of the everyday corpus:
// at least 300 common safe invocations, at least 98% auto-approved under
// the rules at its top, and every refusal explained by the comment above
// it. TestCommandRulesGolden checks each decision.
func TestEverydayCorpus(t *testing.T) {
	b, err := os.ReadFile("testdata/commands/rules_everyday.txt")
	if err != nil {
		t.Fatal(err)
	}
	allowed, refused := 0, 0
	explained := false
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "#"):
			explained = true
			continue
		case strings.HasPrefix(line, "allow "):
			allowed++
		case strings.HasPrefix(line, "confirm "), strings.HasPrefix(line, "deny "):
			refused++
			if !explained {
				t.Errorf("refusal without an explanation: %s", line)
			}
		}
		explained = false
	}
	total := allowed + refused
	t.Logf("%d everyday commands, %d auto-approved (%.1f%%), %d refused", total, allowed, 100*float64(allowed)/float64(total), refused)
	if total < 300 {
		t.Errorf("only %d everyday commands, want at least 300", total)
	}
	if float64(allowed) < 0.98*float64(total) {
		t.Errorf("%d of %d auto-approved, want at least 98%%", allowed, total)
	}
}
