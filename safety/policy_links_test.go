package safety

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyHardLinksOutside checks that a file whose other names lie
// outside the workspace asks to be read, while one whose names are all in
// the workspace, or that sits in a package manager's store, does not.
func TestPolicyHardLinksOutside(t *testing.T) {
	w, root, outside := policyWorkspace(t)
	link := func(from, to string) {
		t.Helper()
		if err := os.Link(from, to); err != nil {
			t.Skipf("hard links unsupported here: %v", err)
		}
	}
	link(filepath.Join(outside, "secret"), filepath.Join(root, "linked.txt"))
	link(filepath.Join(root, "notes.txt"), filepath.Join(root, "notes-copy.txt"))
	writeFile(t, filepath.Join(outside, "pkg.js"), "module.exports = 1")
	writeFile(t, filepath.Join(root, "node_modules/pkg/placeholder"), "")
	link(filepath.Join(outside, "pkg.js"), filepath.Join(root, "node_modules/pkg/index.js"))
	p := &Policy{Workspace: w, Rules: CommandRules{AllowReadOnly: true}}
	for _, tc := range []struct {
		cmd     string
		want    Decision
		mention string
	}{
		{"cat linked.txt", Confirm, "outside the workspace (hard links)"},
		{"cat notes-copy.txt", Allow, "read-only"},
		{"cat node_modules/pkg/index.js", Allow, "read-only"},
	} {
		a := p.AssessCommand(context.Background(), tc.cmd, "")
		if a.Decision != tc.want || !strings.Contains(a.Reason(), tc.mention) {
			t.Errorf("AssessCommand(%q) = %v, want %v mentioning %q\nreasons: %s", tc.cmd, a.Decision, tc.want, tc.mention, a.Reason())
		}
	}
	if a := p.AssessFile(context.Background(), "linked.txt", OpRead); a.Decision != Confirm {
		t.Errorf("AssessFile(linked.txt, read) = %v, want confirm: %s", a.Decision, a.Reason())
	}
}
