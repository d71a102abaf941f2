package safety

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
)

// TestPolicyRound5Blind runs the blind attack cases of
// testdata/commands/policy_round5.txt: under read-only approval and the
// file's allow rules, none may be allowed.
func TestPolicyRound5Blind(t *testing.T) {
	f, err := os.Open("testdata/commands/policy_round5.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, _, _ := policyWorkspace(t)
	rules := CommandRules{AllowReadOnly: true}
	var cmds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "allow: "):
			rules.Allow = append(rules.Allow, strings.TrimPrefix(line, "allow: "))
		default:
			cmds = append(cmds, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 40 {
		t.Fatalf("only %d blind cases", len(cmds))
	}
	p := &Policy{Workspace: w, Rules: rules}
	for _, cmd := range cmds {
		if a := p.AssessCommand(context.Background(), cmd, ""); a.Decision == Allow {
			t.Errorf("AssessCommand(%q) allowed: %s", cmd, a.Reason())
		}
	}
}
