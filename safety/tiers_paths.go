package safety

import (
	"path"
	"strings"
)

// This file classifies the paths commands read and write: system
// locations and devices are critical, start-up files, credentials, hooks
// and agent configuration are high (persistence).

// systemTop lists top-level directories owned by the operating system.
var systemTop = map[string]bool{
	"bin": true, "sbin": true, "usr": true, "etc": true, "lib": true, "lib32": true, "lib64": true,
	"libx32": true, "boot": true, "sys": true, "proc": true, "dev": true, "root": true, "opt": true,
	"var": true, "srv": true, "snap": true, "System": true, "Library": true, "Applications": true,
	"private": true, "cores": true, "Volumes": true, "mnt": true, "media": true,
}

// cleanPath normalises p for classification, keeping a leading "~".
func cleanPath(p string) string {
	if p == "" {
		return p
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		rest := strings.TrimPrefix(p, "~")
		if rest == "" || rest == "/" {
			return "~"
		}
		c := path.Clean(rest)
		if c == "/" {
			return "~"
		}
		return "~" + c
	}
	return path.Clean(p)
}

// systemPath reports whether p lies in an operating-system location
// (temporary directories excepted).
func systemPath(p string) bool {
	c := cleanPath(p)
	if !strings.HasPrefix(c, "/") {
		return false
	}
	if c == "/" {
		return true
	}
	first, rest, _ := strings.Cut(c[1:], "/")
	if strings.ContainsAny(first, "*?[") {
		return true
	}
	if first == "var" && (rest == "tmp" || strings.HasPrefix(rest, "tmp/")) {
		return false
	}
	if first == "private" && (strings.HasPrefix(rest, "tmp") || strings.HasPrefix(rest, "var/folders")) {
		return false
	}
	if first == "dev" && (rest == "shm" || strings.HasPrefix(rest, "shm/")) {
		return false
	}
	return systemTop[first]
}

// homeTarget reports whether p is a home directory or lies in one.
func homeTarget(p string) bool {
	c := cleanPath(p)
	if c == "~" || strings.HasPrefix(c, "~") {
		return true
	}
	if !strings.HasPrefix(c, "/") {
		return false
	}
	first, rest, _ := strings.Cut(c[1:], "/")
	return first == "home" || first == "Users" || (first == "root" && rest == "")
}

// criticalDelete reports a recursive or forced delete target that would
// destroy the system, a home directory or the parent of the workspace.
func criticalDelete(p string) (string, bool) {
	c := cleanPath(p)
	switch {
	case c == "/":
		return "the root directory", true
	case systemPath(c):
		return "a system directory", true
	case c == "~" || strings.HasPrefix(c, "~") && !strings.HasPrefix(c, "~/"):
		return "a home directory", true
	case homeTarget(c):
		return "a home directory or part of one", true
	case c == ".." || strings.HasPrefix(c, "../..") || strings.HasSuffix(c, "/.."):
		return "a directory above the workspace", true
	case strings.HasPrefix(c, "/"):
		if !strings.Contains(c[1:], "/") && c != "/tmp" {
			return "a top-level directory", true
		}
	}
	return "", false
}

// persistence classifies paths whose modification makes code run later or
// grants access: shell start-up files, ssh keys, git hooks and config,
// agent and editor configuration, CI workflows, schedulers.
func persistence(p string) (string, bool) {
	c := cleanPath(p)
	lc := strings.ToLower(c)
	base := path.Base(lc)
	switch base {
	case ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
		".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc", "config.fish":
		return "a shell start-up file", true
	case "authorized_keys", "authorized_keys2":
		return "ssh authorized keys", true
	case ".gitconfig", ".gitmodules", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".netrc", ".mcp.json", ".envrc":
		return "a configuration file that runs or authorises code", true
	}
	if path.Base(c) == "HEAD" || base == "config" || base == "packed-refs" {
		// HEAD, config, objects/ and refs/ make any directory a repository
		// to git, whose config then runs programs (core.fsmonitor) on a
		// plain `git status` there.
		return "a file that makes its directory a git repository with its own configuration", true
	}
	seg := "/" + strings.TrimPrefix(strings.TrimPrefix(lc, "~"), "/") + "/"
	for _, s := range []struct{ part, what string }{
		{"/.ssh/", "ssh configuration or keys"},
		{"/.git/hooks/", "git hooks"},
		{"/.git/config/", "git configuration"},
		{"/.git/info/", "git configuration"},
		{"/.husky/", "git hooks"},
		{"/.claude/", "agent configuration"},
		{"/.cursor/", "agent configuration"},
		{"/.codex/", "agent configuration"},
		{"/.gemini/", "agent configuration"},
		{"/.agents/", "agent configuration"},
		{"/.vscode/", "editor configuration that can run tasks"},
		{"/.idea/", "editor configuration that can run tasks"},
		{"/.github/workflows/", "CI workflows"},
		{"/.config/autostart/", "desktop autostart"},
		{"/.config/systemd/", "systemd user units"},
		{"/library/launchagents/", "launch agents"},
		{"/.gnupg/", "gpg keys"},
		{"/.aws/", "cloud credentials"},
		{"/.kube/", "cluster credentials"},
		{"/.docker/", "docker credentials"},
	} {
		if strings.Contains(seg, s.part) {
			return s.what, true
		}
	}
	return "", false
}

// chdir follows `cd DIR` so that later relative paths are judged where
// they land (`cd / && rm -rf .` deletes /). An unknown directory resets
// to the workspace, which is where relative paths are otherwise judged.
func (a *analyzer) chdir(ops []word) {
	switch {
	case len(ops) == 0:
		a.cwd = "~"
	case ops[0].dynamic || ops[0].s == "-":
		a.cwd = ""
	default:
		a.cwd = cleanPath(a.resolve(ops[0].s))
	}
}

// resolve joins a relative p to the directory a cd in the script chose.
func (a *analyzer) resolve(p string) string {
	if a.cwd == "" || p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return p
	}
	if strings.HasPrefix(a.cwd, "~") {
		return cleanPath(a.cwd + "/" + p)
	}
	return path.Join(a.cwd, p)
}

// downloaded records a file a fetch command writes, so that running it
// later in the same line (`curl -o x.sh URL && sh x.sh`) is judged like
// piping the download into a shell.
func (a *analyzer) downloaded(w word) {
	if w.dynamic || w.s == "" || w.s == "-" {
		return
	}
	if a.downloads == nil {
		a.downloads = make(map[string]bool)
	}
	a.downloads[cleanPath(a.resolve(w.s))] = true
}

func (a *analyzer) wasDownloaded(w word) bool {
	return !w.dynamic && a.downloads[cleanPath(a.resolve(w.s))]
}

// judgeWrite raises the severity of a write to p by command idx. A write
// through a symlink the line made earlier (`ln -s /etc/passwd x && echo
// > x`) is also judged as a write to the link's target.
func (a *analyzer) judgeWrite(idx int, p, by string) {
	c := cleanPath(a.resolve(p))
	if t, ok := a.symlinks[c]; ok && t != p {
		delete(a.symlinks, c) // a link to itself must not loop
		a.judgeWrite(idx, t, by)
		a.symlinks[c] = t
	}
	switch {
	case harmlessDevice(c):
		// tee /dev/null, cp x /dev/stderr: sinks, not system files.
	case strings.HasPrefix(c, "/dev/tcp/") || strings.HasPrefix(c, "/dev/udp/"):
		a.concern(idx, EffectNetwork, SeverityCritical, true, "opens a network connection through "+p+" (reverse shell pattern)")
	case strings.HasPrefix(c, "/dev/") && !harmlessDevice(c):
		a.concern(idx, EffectSystem, SeverityCritical, true, "writes to the device "+p)
	case systemPath(c):
		a.concern(idx, EffectSystem, SeverityCritical, true, "writes into the system path "+p)
	case inPathDir(c):
		a.concern(idx, EffectExecutes, SeverityHigh, true, "installs "+p+" into a directory on PATH, where it shadows commands everywhere")
	default:
		if what, ok := persistence(c); ok {
			a.concern(idx, EffectWrites, SeverityHigh, true, "writes "+what+" ("+p+")")
		}
	}
}

// judgeRead raises the severity of a read of p.
func (a *analyzer) judgeRead(idx int, p string) {
	c := cleanPath(p)
	if strings.HasPrefix(c, "/dev/tcp/") || strings.HasPrefix(c, "/dev/udp/") {
		a.concern(idx, EffectNetwork, SeverityCritical, true, "reads from a network connection through "+p+" (reverse shell pattern)")
	}
}

// symlinked records the links `ln -s TARGET… [LINK]` makes.
func (a *analyzer) symlinked(ops []word) {
	if a.symlinks == nil {
		a.symlinks = map[string]string{}
	}
	if len(ops) == 1 {
		if !ops[0].dynamic {
			a.symlinks[cleanPath(a.resolve(path.Base(ops[0].s)))] = ops[0].s
		}
		return
	}
	link := ops[len(ops)-1]
	if link.dynamic {
		return
	}
	if len(ops) == 2 && !ops[0].dynamic {
		a.symlinks[cleanPath(a.resolve(link.s))] = ops[0].s
		return
	}
	for _, t := range ops[:len(ops)-1] { // ln -s A B DIR: DIR/A, DIR/B
		if !t.dynamic {
			a.symlinks[cleanPath(a.resolve(path.Join(link.s, path.Base(t.s))))] = t.s
		}
	}
}
