package safety

import (
	"context"
	"strings"
	"testing"
)

// TestPolicyRound5Paths checks that the words npm passes on to a
// script's test runner are judged at the policy: a runner option that
// loads code needs a rule naming it, and a file outside the workspace,
// as an operand or an option's value, needs approval, while everyday
// pass-through words stay allowed under "npm test".
func TestPolicyRound5Paths(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	rules := CommandRules{AllowReadOnly: true, Allow: []string{"npm test", "pnpm test", "npm run test", "npm run build"}}
	p := &Policy{Workspace: w, Rules: rules}
	for _, tc := range []struct {
		cmd     string
		want    Decision
		mention string
	}{
		{"npm test -- /tmp/evil.test.js", Confirm, "outside the workspace"},
		{"npm test -- ../../other/x.test.js", Confirm, "outside the workspace"},
		{"npm test -- --outputFile=/tmp/x.json", Confirm, "outside the workspace"},
		{"npm test -- --config /tmp/jest.config.js", Confirm, "--config"},
		{"npm test -- -c ./jest.alt.js", Confirm, "-c"},
		{"npm test -- --setupFiles=./x.js", Confirm, "--setupFiles"},
		{"pnpm test -- --config=vitest.other.ts", Confirm, "--config"},
		{"npm run test -- --globalSetup ./g.js", Confirm, "--globalSetup"},
		{"npm test -- --reporter=./r.js", Confirm, "--reporter"},
		{"npm test -- --rootDir=/", Confirm, "--rootDir"},
		{"npm test -- --watch=false", Allow, "allowed"},
		{"npm test -- --coverage", Allow, "allowed"},
		{"npm test -- src/foo.test.ts", Allow, "allowed"},
		{"npm test -- -t 'adds numbers'", Allow, "allowed"},
		{"npm test -- --reporter=verbose", Allow, "allowed"},
		{"npm run build -- --watch", Allow, "allowed"},
		{"npm test -- -u", Allow, "allowed"},
	} {
		a := p.AssessCommand(context.Background(), tc.cmd, "")
		if a.Decision != tc.want || !strings.Contains(a.Reason(), tc.mention) {
			t.Errorf("AssessCommand(%q) = %v, want %v mentioning %q\nreasons: %s", tc.cmd, a.Decision, tc.want, tc.mention, a.Reason())
		}
	}
}
