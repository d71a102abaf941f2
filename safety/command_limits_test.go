package safety

import (
	"strings"
	"testing"
)

// TestAdversarialShapes checks that hostile shapes of input fail closed
// rather than being skipped or accepted.
func TestAdversarialShapes(t *testing.T) {
	n := 100 << 10
	for _, tc := range []struct {
		name string
		cmd  string
		want Severity
	}{
		{"deep substitutions", strings.Repeat("$(", n/3) + "ls" + strings.Repeat(")", n/3), SeverityHigh},
		{"deep subshells", strings.Repeat("( ", 5000) + "ls" + strings.Repeat(" )", 5000), SeverityHigh},
		{"wrapper chain", strings.Repeat("nohup ", n/6) + "rm -rf ~", SeverityHigh},
		{"eval chain", strings.Repeat("eval ", n/5) + "ls", SeverityHigh},
		{"script chain", scriptChain(14, "ls"), SeverityHigh},
		{"script chain within the bound", scriptChain(10, "rm -rf ~"), SeverityCritical},
		{"huge brace product", "echo " + strings.Repeat("{a,b}", 30), SeverityHigh},
		{"huge sequence", "echo {1..2000000000}", SeverityHigh},
		{"moderate nesting is analysed", strings.Repeat("( ", 200) + "rm -rf ~" + strings.Repeat(" )", 200), SeverityCritical},
		{"wrappers within the bound", strings.Repeat("nohup ", 60) + "rm -rf ~", SeverityCritical},
		{"deep default words", strings.Repeat("${x:-", 3000) + "rm" + strings.Repeat("}", 3000) + " -rf ~", SeverityHigh},
		{"default words within the bound", strings.Repeat(`"${x:-`, 50) + "rm" + strings.Repeat(`}"`, 50) + " -rf ~", SeverityCritical},
		{"many secret expansions", "echo" + strings.Repeat(" $TOKEN", n/7), SeverityMedium},
		// Worst readings of substitutions: linear in nesting, bounded in
		// size (these shapes once took exponential time).
		{"doubling variables", "x=$(echo a); " + strings.Repeat(`x="$x$x"; `, 3000) + `eval "$x"`, SeverityHigh},
		{"nested eval of echo", strings.Repeat(`eval "$(echo `, 300) + "rm -rf ~" + strings.Repeat(`)"`, 300), SeverityHigh},
		{"nested echo as the command name", strings.Repeat("$(echo ", 900) + "rm" + strings.Repeat(")", 900) + " -rf ~", SeverityCritical},
		{"nested eval substitutions", strings.Repeat("eval $(", 450) + "rm" + strings.Repeat(")", 450), SeverityHigh},
		{"nested process substitutions", strings.Repeat("bash <(", 450) + "rm" + strings.Repeat(")", 450), SeverityHigh},
		{"nested sh -c substitutions", strings.Repeat(`sh -c "$(`, 400) + "rm" + strings.Repeat(`)"`, 400), SeverityHigh},
	} {
		a := AnalyzeCommand(tc.cmd)
		if a.Severity != tc.want {
			t.Errorf("%s: severity %s, want %s (%.200q)", tc.name, a.Severity, tc.want, a.Reasons())
		}
		if tc.want == SeverityHigh && !a.Unanalyzable {
			t.Errorf("%s: want unanalysable", tc.name)
		}
		for _, r := range a.Reasons() {
			if len(r) > 400 {
				t.Errorf("%s: reason of %d bytes; source text in reasons must be abbreviated", tc.name, len(r))
				break
			}
		}
	}
}

func TestNestingDepthIgnoresQuotes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"ls", 0},
		{"(ls)", 1},
		{"$(echo $(ls))", 2},
		{"echo '((((('", 0},
		{`echo "\(\(" \(`, 0},
		{"{ (ls); }", 2},
		{"echo `ls`", 1},
	} {
		if got := nestingDepth(tc.s); got != tc.want {
			t.Errorf("nestingDepth(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// scriptChain nests cmd in n levels of bash -c "…".
func scriptChain(n int, cmd string) string {
	for range n {
		cmd = `bash -c "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(cmd) + `"`
	}
	return cmd
}
