package safety

import (
	"strings"
	"testing"
)

// TestWorstReading pins the judgement of command substitutions whose
// output cannot be reconstructed: as a command name or a script, they are
// as dangerous as their commands' arguments would be if printed, and the
// everyday shell set-up lines stay merely unanalysable. (Command names
// holding a space do not fit the golden files' format, so they live here.)
func TestWorstReading(t *testing.T) {
	tests := []struct {
		cmd  string
		want Severity
	}{
		{"$(printf 'rm -rf ~')", SeverityCritical},
		{"$(echo rm) -rf ~", SeverityCritical},
		{"`echo rm` -rf ~", SeverityCritical},
		{"$(printf 'rm') -rf ~", SeverityCritical},
		{`"$(echo rm)" -rf "$HOME"`, SeverityCritical},
		{"$(echo rm -rf ~)", SeverityCritical},
		{"$(tool rm) -rf /", SeverityCritical},
		{"x=$(tool rm); $x -rf ~", SeverityCritical},
		{`"$(echo bash)" -c 'rm -rf ~'`, SeverityCritical}, // the quoted script stays one word
		{"sudo $(echo rm) -rf /", SeverityCritical},
		{"env $(echo rm) -rf ~", SeverityCritical},
		{"time $(echo rm) -rf ~", SeverityCritical},
		{`$(echo r""m) -rf ~`, SeverityCritical},
		{"$(echo ls) -la", SeverityHigh},
		{"$(echo rm) notes.txt", SeverityHigh},
		{"$(which python3) -V", SeverityHigh},
		{`eval "$(rbenv init - zsh)"`, SeverityHigh}, // "init - zsh" names no path: not the sysvinit reading
	}
	for _, tt := range tests {
		a := AnalyzeCommand(tt.cmd)
		if a.Severity != tt.want || !a.Unanalyzable || a.AutoApprovable() {
			t.Errorf("%s: severity %s unanalysable %v auto %v, want %s, unanalysable, not auto\n%q",
				tt.cmd, a.Severity, a.Unanalyzable, a.AutoApprovable(), tt.want, a.Reasons())
		}
		if tt.want == SeverityCritical && !strings.Contains(strings.Join(a.Reasons(), "\n"), "known only at run time, which would be critical") {
			t.Errorf("%s: no reason names the worst reading: %q", tt.cmd, a.Reasons())
		}
	}
}

// TestWorstReadingNoRuleApproves checks that no allow rule, however
// broad, approves a line whose worst reading is critical.
func TestWorstReadingNoRuleApproves(t *testing.T) {
	rules := CommandRules{Allow: []string{"*", "eval", "bash", "sh", "echo", "printf"}, AllowReadOnly: true}
	for _, cmd := range []string{
		`eval "$(echo rm -rf ~)"`, `sh -c "$(echo rm -rf ~)"`, "eval `echo rm -rf ~`", "$(echo rm) -rf ~",
		`x="$(echo rm -rf ~)"; eval "$x"`,
	} {
		if v := rules.Evaluate(cmd); v.Decision == Allow {
			t.Errorf("%s: allowed by %q", cmd, rules.Allow)
		}
	}
}
