package safety

import (
	"slices"
	"strings"
	"testing"
)

// TestAllowRulesNameEveryHighEffect checks the allow-rule property over
// every command of the analysis goldens: under a rule made of a
// command's first word, or its first two, a line is approved only if
// each high concern of each sub-command a rule approved has an effect the
// rule's own words have. Every concern carries an effect, so no high
// finding can be approved by a rule that does not name it.
func TestAllowRulesNameEveryHighEffect(t *testing.T) {
	approved := 0
	for _, gc := range loadAnalysisCases(t) {
		a := AnalyzeCommand(gc.cmd)
		for _, c := range a.Commands {
			cands := []string{c.Name}
			if len(c.Args) > 0 && !strings.HasPrefix(c.Args[0], "-") && !strings.ContainsAny(c.Args[0], " \t\n,") {
				cands = append(cands, c.Name+" "+c.Args[0])
			}
			for _, rl := range cands {
				if strings.ContainsAny(rl, ",\n") {
					continue
				}
				v := CommandRules{Allow: []string{rl}, AllowReadOnly: true}.EvaluateAnalysis(a)
				if !v.AutoApproved {
					continue
				}
				approved++
				for _, m := range v.Matches {
					if m.List != "allow" {
						continue
					}
					own := wordsEffects(strings.Fields(m.Rule))
					for _, cn := range a.Concerns {
						if cn.Command == m.Command && cn.Severity >= SeverityHigh && !slices.Contains(own, cn.Effect) {
							t.Errorf("%s:%d: rule %q approves %q, whose concern %q has effect %s the rule's words do not have (%v)",
								gc.file, gc.line, m.Rule, gc.cmd, cn.Reason, cn.Effect, own)
						}
					}
				}
			}
		}
	}
	if approved < 100 {
		t.Errorf("only %d approvals checked", approved)
	}
}
