package safety

import (
	"os"
	"strings"
	"testing"
)

// TestHandOffsAsk runs testdata/handoff_blind.txt: handing work to a
// daemon that already runs is never rated harmless, so no read-only
// approval runs it unasked; only a rule naming it does.
func TestHandOffsAsk(t *testing.T) {
	b, err := os.ReadFile("testdata/handoff_blind.txt")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := 0, 0
	for line := range strings.SplitSeq(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, source, found := strings.Cut(line, "\t")
		if !found || source == "" {
			t.Fatalf("line without a source: %q", line)
		}
		n++
		an := AnalyzeCommand(cmd)
		v := CommandRules{AllowReadOnly: true}.Evaluate(cmd)
		if an.Severity < SeverityMedium || v.AutoApproved {
			t.Errorf("%s: %q is %s (auto-approved %v), want at least medium and asked", source, cmd, an.Severity, v.AutoApproved)
			continue
		}
		ok++
	}
	t.Logf("hand-off blind batch: %d/%d ask", ok, n)
}
