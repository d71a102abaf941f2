package safety

import "strings"

// git is programmable: global options and configuration can make even
// `git status` run a program. This classifier treats those as escape
// hatches (high, never auto-approved) and ranks subcommands.

// gitValued lists global options that take the next word.
const gitValued = "-C -c --git-dir --work-tree --namespace --exec-path --super-prefix --config-env --list-cmds --attr-source"

func git(c *call) {
	i := 0
	for i < len(c.args) {
		w := c.args[i]
		if w.dynamic || !strings.HasPrefix(w.s, "-") {
			break
		}
		name, _, _ := strings.Cut(w.s, "=")
		switch name {
		case "-C":
			if i+1 < len(c.args) {
				c.path(c.args[i+1], OpChdir)
			}
		case "-c", "--config-env":
			v := ""
			if i+1 < len(c.args) {
				v = c.args[i+1].s
			}
			c.concern(SeverityHigh, true, "git "+name+" "+v+" overrides configuration, which can run programs")
		case "--git-dir", "--work-tree", "--exec-path", "--namespace", "--super-prefix", "--attr-source":
			c.concern(SeverityHigh, true, "git "+name+" points git at other configuration or programs")
		case "-p", "--paginate":
			c.concern(SeverityHigh, true, "git "+name+" forces the configured pager to run")
		}
		if takesValue(name, gitValued) && !strings.Contains(w.s, "=") {
			i++
		}
		i++
	}
	if i >= len(c.args) {
		return // git --version, git -h
	}
	sub := c.args[i]
	if sub.dynamic {
		c.unanalyzable("git subcommand known only at run time (" + sub.s + ")")
		return
	}
	rest := c.args[i+1:]
	flags, ops := opts(rest, "-m --message -F --file -C -c -n -b -B -o --output -S -G --author --format --pretty", false)
	escapeHatch(c, flags)
	if sub.s == "rebase" {
		for _, v := range valuesOf(rest, "-x", "--exec") {
			c.concern(SeverityHigh, true, "git rebase --exec runs a command after each commit")
			c.script(Opaque, v)
		}
	}
	switch sub.s {
	case "status", "log", "diff", "show", "blame", "annotate", "rev-parse", "rev-list", "ls-files",
		"ls-tree", "ls-remote", "grep", "describe", "shortlog", "cat-file", "show-ref", "show-branch", "whatchanged",
		"name-rev", "merge-base", "for-each-ref", "count-objects", "fsck", "verify-commit", "verify-tag",
		"check-ignore", "check-attr", "var", "version", "help", "diff-tree", "diff-files", "diff-index", "range-diff":
		if sub.s == "diff" || sub.s == "log" || sub.s == "show" {
			if f, ok := hasPrefixFlag(flags, "--output"); ok {
				c.concern(SeverityHigh, true, "git "+sub.s+" "+f+" writes a file")
			}
		}
	case "branch":
		if has(flags, "dDmMcC", "--delete", "--move", "--copy", "--set-upstream-to", "--unset-upstream", "--edit-description", "--force") {
			if has(flags, "D", "--force") || hasCombo(flags, "d", "f") {
				c.concern(SeverityHigh, false, "git branch force-deletes or overwrites a branch")
			} else {
				c.concern(SeverityMedium, false, "git branch changes branches")
			}
		} else if len(ops) > 0 && !has(flags, "alr", "--list", "--all", "--remotes", "--contains", "--merged", "--no-merged", "--points-at") {
			c.concern(SeverityMedium, false, "git branch creates a branch")
		}
	case "tag":
		if len(ops) > 0 && !has(flags, "l", "--list", "--contains", "--points-at", "--merged") {
			sev := SeverityMedium
			if has(flags, "df", "--delete", "--force") {
				sev = SeverityHigh
			}
			c.concern(sev, false, "git tag changes tags")
		}
	case "remote":
		if len(ops) > 0 && ops[0].s != "show" && ops[0].s != "get-url" {
			c.concern(SeverityMedium, false, "git remote changes remotes")
		}
	case "stash":
		if len(ops) == 0 || ops[0].s != "list" && ops[0].s != "show" {
			sev := SeverityMedium
			if len(ops) > 0 && (ops[0].s == "drop" || ops[0].s == "clear") {
				sev = SeverityHigh
			}
			c.concern(sev, false, "git stash changes the working tree or stash")
		}
	case "worktree":
		if len(ops) == 0 || ops[0].s != "list" {
			c.concern(SeverityMedium, false, "git worktree changes worktrees")
		}
	case "reflog":
		if len(ops) > 0 && (ops[0].s == "expire" || ops[0].s == "delete") {
			c.concern(SeverityHigh, false, "git reflog "+ops[0].s+" destroys recovery history")
		}
	case "config":
		gitConfig(c, flags, ops)
	case "push":
		if has(flags, "fd", "--force", "--force-with-lease", "--force-if-includes", "--delete", "--mirror", "--prune") || plusRefspec(ops) {
			c.concern(SeverityHigh, false, "git push rewrites or deletes remote history")
		} else {
			c.concern(SeverityMedium, false, "git push publishes commits")
		}
	case "reset":
		if has(flags, "", "--hard", "--merge", "--keep") {
			c.concern(SeverityHigh, false, "git reset "+strings.Join(flags, " ")+" discards work")
		} else {
			c.concern(SeverityMedium, false, "git reset moves the branch or index")
		}
	case "clean":
		if has(flags, "fxX", "--force") {
			c.concern(SeverityHigh, false, "git clean deletes untracked files")
		} else {
			c.concern(SeverityMedium, false, "git clean")
		}
	case "checkout", "restore", "switch":
		discard := has(flags, "f", "--force", "--discard-changes", "--worktree", "--ours", "--theirs") || sub.s == "restore" && !has(flags, "S", "--staged")
		for idx, w := range rest {
			if w.s == "--" || w.s == "." || (sub.s == "checkout" && idx > 0 && rest[idx-1].s == "--") {
				discard = true
			}
		}
		if discard {
			c.concern(SeverityHigh, false, "git "+sub.s+" discards uncommitted changes")
		} else {
			c.concern(SeverityMedium, false, "git "+sub.s+" changes the working tree")
		}
	case "filter-branch", "filter-repo", "replace", "update-ref", "gc", "prune", "rerere":
		sev := SeverityMedium
		if sub.s != "rerere" && (sub.s != "gc" || has(flags, "", "--prune", "--aggressive")) {
			sev = SeverityHigh
		}
		c.concern(sev, false, "git "+sub.s+" rewrites repository data")
	case "submodule", "bisect":
		for k, w := range ops {
			if w.s == "foreach" || w.s == "run" {
				c.concern(SeverityMedium, false, "git "+sub.s+" "+w.s+" runs a command")
				if w.s == "foreach" {
					c.script(Opaque, joinWords(ops[k+1:]))
				} else {
					c.wrap(Opaque, ops[k+1:])
				}
				return
			}
		}
		c.concern(SeverityMedium, false, "git "+sub.s+" changes the repository")
	case "clone", "fetch", "pull", "add", "commit", "merge", "rebase", "cherry-pick", "revert",
		"am", "apply", "mv", "rm", "init", "notes", "sparse-checkout", "lfs", "format-patch", "archive", "bundle", "maintenance":
		sev := SeverityMedium
		if sub.s == "rm" && has(flags, "rf", "--force") {
			sev = SeverityHigh
		}
		c.concern(sev, false, "git "+sub.s+" changes the repository")
	default:
		c.concern(SeverityMedium, false, "git "+sub.s+" is not a known read-only subcommand (it may be an alias)")
	}
}

// escapeHatch flags subcommand options that run programs.
func escapeHatch(c *call, flags []string) {
	for _, f := range flags {
		name, _, _ := strings.Cut(f, "=")
		if strings.HasPrefix(name, "-O") && len(name) > 2 {
			name = "-O"
		}
		switch name {
		case "--ext-diff", "--upload-pack", "--receive-pack", "--exec", "-u", "--extcmd", "--tool", "--open-files-in-pager", "-O":
			if name == "-u" {
				continue // -u is patch output for diff/log; upload-pack for fetch uses --upload-pack
			}
			c.concern(SeverityHigh, true, "git option "+f+" runs another program")
		case "--textconv":
			c.concern(SeverityMedium, true, "git option --textconv runs configured filters")
		}
	}
}

func hasCombo(flags []string, a, b string) bool {
	return has(flags, a) && has(flags, b)
}

func plusRefspec(ops []word) bool {
	for _, w := range ops {
		if strings.HasPrefix(w.s, "+") || strings.HasPrefix(w.s, ":") {
			return true
		}
	}
	return false
}

// gitConfig: reading is harmless; writing keys that name programs is
// persistence.
func gitConfig(c *call, flags []string, ops []word) {
	verb := ""
	if len(ops) > 0 {
		verb = ops[0].s
	}
	switch verb {
	case "get", "list", "get-regexp", "get-urlmatch", "get-color", "get-colorbool":
		return
	}
	writing := has(flags, "e", "--edit", "--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all") ||
		verb == "set" || verb == "unset" || verb == "edit" || verb == "rename-section" || verb == "remove-section" || len(ops) >= 2
	if !writing || has(flags, "l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch") {
		return
	}
	key := ""
	for _, w := range ops {
		if w.s != "set" && w.s != "unset" {
			key = strings.ToLower(w.s)
			break
		}
	}
	if dangerousGitKey(key) {
		c.concern(SeverityHigh, true, "git config "+key+" makes git run a program (persistence)")
		return
	}
	c.concern(SeverityMedium, false, "git config changes configuration")
	if has(flags, "", "--global", "--system") {
		c.concern(SeverityHigh, false, "git config changes configuration outside the repository")
	}
}

func dangerousGitKey(k string) bool {
	if strings.HasPrefix(k, "alias.") || strings.HasPrefix(k, "filter.") || strings.HasPrefix(k, "diff.") && (strings.HasSuffix(k, ".textconv") || strings.HasSuffix(k, ".command") || k == "diff.external") || strings.HasPrefix(k, "credential") || strings.HasSuffix(k, ".sshcommand") || strings.HasPrefix(k, "merge.") && strings.HasSuffix(k, ".driver") {
		return true
	}
	switch k {
	case "core.pager", "core.hookspath", "core.fsmonitor", "core.sshcommand", "core.editor", "core.askpass",
		"core.gitproxy", "core.attributesfile", "core.excludesfile", "include.path", "sequence.editor",
		"pager.log", "pager.diff", "pager.show", "pager.status", "gpg.program", "gpg.ssh.program",
		"uploadpack.packobjectshook", "remote.origin.uploadpack", "remote.origin.receivepack", "init.templatedir":
		return true
	}
	return strings.HasPrefix(k, "pager.") || strings.HasPrefix(k, "includeif.")
}
