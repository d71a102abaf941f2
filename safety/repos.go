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

// foreignRepo returns the directory whose repository git would use when
// run in dir, if that is not the workspace's own, following git's
// discovery: from dir upwards, the first directory holding a .git
// (directory, or file with a "gitdir:" pointer) or being a git directory
// itself (HEAD with objects/ and refs/, either of them possibly reached
// through a "commondir" file) decides. The workspace's own repository is
// a .git directory at a root, or a .git file there pointing outside the
// workspace (a worktree of a repository elsewhere); a .git file below a
// root is the root's own only when it points into the root's .git (a
// submodule or worktree). Every other repository, a root without .git
// shaped as a git directory included, is foreign. Discovery that reaches
// the root without finding one leaves the workspace: not judged here.
func (w *Workspace) foreignRepo(dir string) string {
	root := w.rootOf(dir)
	if root == "" {
		return ""
	}
	own := filepath.Join(root, ".git") + string(filepath.Separator)
	for d := dir; ; d = filepath.Dir(d) {
		gd := filepath.Join(d, ".git")
		if fi, err := os.Lstat(gd); err == nil {
			switch {
			case fi.IsDir() && d == root:
				return "" // the workspace's own repository
			case fi.IsDir():
				return d
			}
			target, ok := gitFileTarget(gd, d)
			switch {
			case !ok:
				// git stops with an error at a .git it cannot read
				// as a pointer; nothing runs.
				return ""
			case d == root && !within(root, target):
				return ""
			case d != root && strings.HasPrefix(target+string(filepath.Separator), own):
				return ""
			}
			return d
		}
		if gitDirectory(d) {
			return d
		}
		if d == root || !strings.HasPrefix(d, root+string(filepath.Separator)) {
			return ""
		}
	}
}

// gitFileTarget reads a .git file ("gitdir: PATH", relative to dir) and
// returns the directory it points to, cleaned.
func gitFileTarget(file, dir string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return filepath.Clean(target), true
}

// gitDirectory reports a directory git would open as a repository
// directory: a HEAD file, and objects/ and refs/ directories either in it
// or in the directory its "commondir" file names (as a linked worktree's
// administrative directory has them).
func gitDirectory(d string) bool {
	head, err := os.Stat(filepath.Join(d, "HEAD"))
	if err != nil || head.IsDir() {
		return false
	}
	common := d
	if b, err := os.ReadFile(filepath.Join(d, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(d, c)
		}
		common = c
	}
	for _, sub := range []string{"objects", "refs"} {
		fi, err := os.Stat(filepath.Join(d, sub))
		if err != nil || !fi.IsDir() {
			if fi, err = os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
				return false
			}
		}
	}
	return true
}

// bareLayout reports a directory git would open as a bare repository.
func bareLayout(d string) bool { return gitDirectory(d) }

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
