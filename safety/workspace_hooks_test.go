package safety

import (
	"path/filepath"
	"testing"
)

// TestHooksPathIsSensitive checks that the directory .git/config names in
// core.hooksPath is sensitive to write like .git/hooks, whatever it is
// called (git-config(1)), and that other directories are not.
func TestHooksPathIsSensitive(t *testing.T) {
	w, root, _ := newTestWorkspace(t)
	writeFile(t, filepath.Join(root, ".git/config"), "[core]\n\tbare = false\n[Core]\n\thooksPath = \"tools/git-hooks\"\n")
	for _, tc := range []struct {
		path string
		want Decision
	}{
		{"tools/git-hooks/pre-commit", Confirm},
		{"tools/git-hooks", Confirm},
		{"tools/other/pre-commit", Allow},
	} {
		pc := w.Check(tc.path, OpWrite)
		if pc.Decision != tc.want {
			t.Errorf("Check(%q, write) = %v (%s), want %v", tc.path, pc.Decision, pc.Reason, tc.want)
		}
	}
	if pc := w.Check("tools/git-hooks/pre-commit", OpRead); pc.Decision != Allow {
		t.Errorf("reading a hook = %v (%s), want allow", pc.Decision, pc.Reason)
	}
}
