package safety

import (
	"os"
	"path/filepath"
	"strings"
)

// git finds its repository by walking up from its working directory, and
// any directory holding HEAD, objects/ and refs/ (or a .git of its own)
// is a repository to it, whose config runs programs on a plain `git
// status` (core.fsmonitor, core.pager). A file tool or an earlier command
// can plant one inside the workspace, so git commands that would run in
// a repository other than the workspace's own need approval.

// foreignRepos asks for approval when the analysed line runs git in a
// directory of bases (resolved, absolute) that lies in a repository other
// than the workspace root's own.
func (p *Policy) foreignRepos(s *signals, an CommandAnalysis, bases []string) {
	if !runsGit(an) {
		return
	}
	for _, base := range bases {
		if repo := p.Workspace.foreignRepo(base); repo != "" {
			s.add(Confirm, "git runs in "+p.Workspace.display(repo)+", which git treats as a repository other than the workspace's own; its configuration can run programs")
			return
		}
	}
}

func runsGit(an CommandAnalysis) bool {
	for _, c := range an.Commands {
		if commandBase(c.Name) == "git" {
			return true
		}
	}
	return false
}

// foreignRepo returns the innermost directory from dir up to (not
// including) the root that holds it which git would take for a
// repository: a .git directory, a .git file pointing outside the root's
// own .git (a worktree or submodule elsewhere), or the bare layout.
func (w *Workspace) foreignRepo(dir string) string {
	root := w.rootOf(dir)
	if root == "" {
		return ""
	}
	own := filepath.Join(root, ".git") + string(filepath.Separator)
	for d := dir; d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		gd := filepath.Join(d, ".git")
		if fi, err := os.Lstat(gd); err == nil {
			if fi.IsDir() || !gitFileWithin(gd, d, own) {
				return d
			}
		}
		if bareLayout(d) {
			return d
		}
	}
	return ""
}

// gitFileWithin reports a .git file ("gitdir: …") pointing into own, as a
// submodule's does.
func gitFileWithin(file, dir, own string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return strings.HasPrefix(filepath.Clean(target)+string(filepath.Separator), own)
}

// bareLayout reports a directory git would open as a bare repository.
func bareLayout(d string) bool {
	head, err := os.Stat(filepath.Join(d, "HEAD"))
	if err != nil || head.IsDir() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// rootOf returns the root (the primary or a folder's) that holds the
// resolved directory dir, or "".
func (w *Workspace) rootOf(dir string) string {
	if within(w.root, dir) {
		return w.root
	}
	for _, f := range w.folders {
		if within(f.ws.root, dir) {
			return f.ws.root
		}
	}
	return ""
}

// display names a resolved directory inside the workspace as a person
// reads it: relative to its root, folders by their name.
func (w *Workspace) display(dir string) string {
	root := w.rootOf(dir)
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return dir
	}
	rel = filepath.ToSlash(rel)
	for _, f := range w.folders {
		if f.ws.root == root {
			return f.name + "/" + rel
		}
	}
	return rel
}

// completesRepository reports a write of p that leaves its directory a
// repository to git: HEAD, objects/ or refs/ completing the bare layout,
// or config written into one.
func completesRepository(p string) bool {
	d, base := filepath.Dir(p), filepath.Base(p)
	has := func(name string, dir bool) bool {
		if strings.EqualFold(base, name) {
			return true
		}
		fi, err := os.Stat(filepath.Join(d, name))
		return err == nil && fi.IsDir() == dir
	}
	switch {
	case strings.EqualFold(base, "config"):
		return bareLayout(d)
	case strings.EqualFold(base, "HEAD"), strings.EqualFold(base, "objects"), strings.EqualFold(base, "refs"):
		return has("HEAD", false) && has("objects", true) && has("refs", true)
	}
	return false
}
