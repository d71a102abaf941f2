package safety

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 21 §4 and §6 at the policy level: secrets reached through include
// globs, git grep's switches and hard links need approval; file names
// produced at run time are judged as the patterns they come from.
func TestPolicyRound2(t *testing.T) {
	w, root, _ := policyWorkspace(t)
	writeFile(t, filepath.Join(root, "sub/app.py"), "print(1)")
	if err := os.Link(filepath.Join(root, ".env"), filepath.Join(root, "readme-copy.txt")); err != nil {
		t.Skipf("hard links: %v", err)
	}
	rules := CommandRules{AllowReadOnly: true, Allow: []string{"git grep", "xargs"}}
	for _, tc := range []struct {
		cmd     string
		want    Decision
		mention string
	}{
		// rg -g and grep --include select files at any depth.
		{"rg -g '.env*' TOKEN", Confirm, ".env"},
		{"rg --glob=.env.local K", Confirm, "sub/.env.local"},
		{"grep -r --include='.env*' TOKEN .", Confirm, ".env"},
		{"rg -g '*.go' package", Allow, "read-only"},
		{"rg -g '!.env' TOKEN", Allow, "read-only"},
		// git grep past the index reaches ignored secrets.
		{"git grep --no-index TOKEN", Confirm, ".env"},
		{"git grep --untracked --no-exclude-standard TOKEN", Confirm, ".env"},
		{"git grep TOKEN", Allow, "allowed"},
		// A hard link is the secret under another name.
		{"cat readme-copy.txt", Confirm, "hard link to the secret .env"},
		{"cat notes.txt", Allow, "read-only"},
		// Run-time file lists.
		{"find . -name '*.py' | xargs cat", Allow, "read-only"},
		{"find . -name '.env*' | xargs cat", Confirm, ".env"},
		{"for f in *.txt; do cat \"$f\"; done", Confirm, "hard link"},
		{"for f in sub/*.go; do cat \"$f\"; done", Allow, "read-only"},
	} {
		p := &Policy{Workspace: w, Rules: rules}
		a := p.AssessCommand(context.Background(), tc.cmd, "")
		if a.Decision != tc.want || !strings.Contains(a.Reason(), tc.mention) {
			t.Errorf("AssessCommand(%q) = %v, want %v mentioning %q\nreasons: %s", tc.cmd, a.Decision, tc.want, tc.mention, a.Reason())
		}
	}
	p := &Policy{Workspace: w}
	if a := p.AssessFile(context.Background(), "readme-copy.txt", OpRead); a.Decision != Confirm {
		t.Errorf("reading a hard link to .env with a file tool: %v, want confirm: %s", a.Decision, a.Reason())
	}
}
