package safety

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory planted with HEAD, config, objects/ and refs/ is a
// repository to git, and `git status` there runs its core.fsmonitor
// (checked with git 2.39: a config with core.worktree = .. and
// core.fsmonitor = "echo PWNED" printed PWNED). Git commands that would
// run in such a repository, or under a nested .git, need approval; the
// workspace's own repository and its submodules do not.
func TestPolicyForeignRepositories(t *testing.T) {
	w, root, outside := policyWorkspace(t)
	writeFile(t, filepath.Join(root, "planted/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "planted/config"), "[core]\n\tworktree = ..\n\tfsmonitor = id\n")
	writeFile(t, filepath.Join(root, "nested/.git/config"), "[core]\n")
	writeFile(t, filepath.Join(root, "mod/.git"), "gitdir: ../.git/modules/mod\n")
	writeFile(t, filepath.Join(root, "away/.git"), "gitdir: "+outside+"\n")
	writeFile(t, filepath.Join(root, "half/HEAD"), "ref: refs/heads/main\n")
	for _, d := range []string{"planted/objects", "planted/refs", "planted/deep/er", "half/objects", "nested/src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := &Policy{Workspace: w, Rules: CommandRules{AllowReadOnly: true}}
	for _, tc := range []struct {
		cmd, dir string
		want     Decision
		mention  string
	}{
		{"git status", "planted", Confirm, "git runs in planted, which git treats as a repository"},
		{"git log", "planted/deep/er", Confirm, "git runs in planted,"},
		{"cd planted && git status", "", Confirm, "git runs in planted,"},
		{"git status", "nested/src", Confirm, "git runs in nested,"},
		{"git status", "away", Confirm, "git runs in away,"},
		{"git status", "", Allow, "read-only"},
		{"git status", "sub", Allow, "read-only"},
		{"git status", "mod", Allow, "read-only"},
		{"git status", "half", Allow, "read-only"},
		{"ls", "planted", Allow, "read-only"},
		{"cd nested && ls", "", Allow, "read-only"},
	} {
		a := p.AssessCommand(context.Background(), tc.cmd, tc.dir)
		if a.Decision != tc.want || !strings.Contains(a.Reason(), tc.mention) {
			t.Errorf("AssessCommand(%q in %q) = %v, want %v mentioning %q\nreasons: %s", tc.cmd, tc.dir, a.Decision, tc.want, tc.mention, a.Reason())
		}
	}
}

// A file tool completing the layout needs approval, in any order of the
// four parts; ordinary files named config or HEAD elsewhere do not.
func TestCheckCompletesRepository(t *testing.T) {
	w, root, _ := newTestWorkspace(t)
	writeFile(t, filepath.Join(root, "a/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "b/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "c/config"), "[core]\n")
	for _, d := range []string{"a/objects", "a/refs", "b/objects", "c/objects", "c/refs", "e/objects", "e/refs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path string
		want Decision
	}{
		{"a/config", Confirm},
		{"a/HEAD", Confirm},
		{"b/refs", Confirm},
		{"e/HEAD", Confirm},
		{"c/HEAD", Confirm},
		{"b/config", Allow},
		{"c/notes.txt", Allow},
		{"config", Allow},
		{"d/HEAD", Allow},
		{"a/objects/ab/cdef", Allow},
	} {
		pc := w.Check(tc.path, OpWrite)
		if pc.Decision != tc.want || tc.want == Confirm && (!pc.Sensitive || !strings.Contains(pc.Reason, "git repository")) {
			t.Errorf("Check(%q, write) = %v (%s), want %v", tc.path, pc.Decision, pc.Reason, tc.want)
		}
	}
	if pc := w.Check("a/config", OpRead); pc.Decision != Allow {
		t.Errorf("reading a/config: %v, want allow", pc.Decision)
	}
}
