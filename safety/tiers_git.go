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
				if d := c.args[i+1]; d.dynamic || cleanPath(d.s) != "." {
					// A directory holding HEAD, config, objects/ and refs/
					// is a repository to git, and its config runs programs
					// (core.fsmonitor) on `git status`.
					c.unvetted("-C "+d.s, "runs git in another directory, which may be a repository whose configuration runs programs")
				}
			}
		case "-c", "--config-env":
			v := ""
			if i+1 < len(c.args) {
				v = c.args[i+1].s
			}
			c.concern(EffectExecutes, SeverityHigh, true, "git "+name+" "+v+" overrides configuration, which can run programs")
			if k, val, ok := strings.Cut(v, "="); ok && name == "-c" {
				gitAliasPayload(c, strings.ToLower(k), word{s: val, dynamic: c.args[i+1].dynamic})
			}
		case "--git-dir", "--work-tree", "--exec-path", "--namespace", "--super-prefix", "--attr-source":
			c.concern(EffectExecutes, SeverityHigh, true, "git "+name+" points git at other configuration or programs")
		case "-p", "--paginate":
			c.concern(EffectExecutes, SeverityHigh, true, "git "+name+" forces the configured pager to run")
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
	gitHatches(c, sub.s, rest, flags, ops)
	if sub.s == "rebase" {
		for _, v := range valuesOf(rest, "-x", "--exec") {
			c.concern(EffectExecutes, SeverityHigh, true, "git rebase --exec runs a command after each commit")
			c.script(Opaque, v)
		}
	}
	if gitReadOnly(sub.s) {
		// Every sub-command that takes diff options writes the diff to
		// --output's file (--output-indicator-new is a character).
		for _, f := range flags {
			if name, _, _ := strings.Cut(f, "="); name == "--output" {
				c.concern(EffectWrites, SeverityHigh, true, "git "+sub.s+" "+f+" writes a file")
			}
		}
		for _, v := range valuesOf(rest, "--output") {
			c.path(v, OpWrite)
		}
		gitReads(c, sub.s, ops)
		return
	}
	switch sub.s {
	case "branch":
		if has(flags, "", "--no-list") {
			flags = withoutList(flags) // --no-list cancels -l: the operands name a new branch
		}
		if has(flags, "dDmMcCf", "--delete", "--move", "--copy", "--set-upstream-to", "--unset-upstream", "--edit-description", "--force") {
			if has(flags, "DfMC", "--force") {
				c.effect(EffectDiscardsWork, false, "git branch force-deletes or overwrites a branch")
			} else {
				c.concern(EffectWrites, SeverityMedium, false, "git branch changes branches")
			}
		} else if len(ops) > 0 && !has(flags, "alr", "--list", "--all", "--remotes", "--contains", "--merged", "--no-merged", "--points-at") {
			c.concern(EffectWrites, SeverityMedium, false, "git branch creates a branch")
		}
	case "tag":
		if has(flags, "", "--no-list") {
			flags = withoutList(flags)
		}
		if len(ops) > 0 && !has(flags, "l", "--list", "--contains", "--points-at", "--merged") {
			sev := SeverityMedium
			if has(flags, "df", "--delete", "--force") {
				sev = SeverityHigh
			}
			c.concern(EffectWrites, sev, false, "git tag changes tags")
		}
	case "remote":
		if len(ops) > 0 && ops[0].s != "show" && ops[0].s != "get-url" {
			c.concern(EffectWrites, SeverityMedium, false, "git remote changes remotes")
		}
	case "stash":
		if len(ops) == 0 || ops[0].s != "list" && ops[0].s != "show" {
			sev := SeverityMedium
			if len(ops) > 0 && (ops[0].s == "drop" || ops[0].s == "clear") {
				c.effect(EffectDiscardsWork, false, "git stash "+ops[0].s+" discards stashed work")
				break
			}
			c.concern(EffectWrites, sev, false, "git stash changes the working tree or stash")
		}
	case "worktree":
		if len(ops) > 0 && ops[0].s == "remove" && has(flags, "f", "--force") {
			c.effect(EffectDiscardsWork, false, "git worktree remove --force discards the worktree's uncommitted changes")
		} else if len(ops) == 0 || ops[0].s != "list" {
			c.concern(EffectWrites, SeverityMedium, false, "git worktree changes worktrees")
		}
	case "reflog":
		if len(ops) > 0 && (ops[0].s == "expire" || ops[0].s == "delete") {
			c.effect(EffectDiscardsWork, false, "git reflog "+ops[0].s+" destroys recovery history")
		}
	case "config":
		gitConfig(c, flags, ops)
	case "push":
		if has(flags, "fd", "--force", "--force-with-lease", "--force-if-includes", "--delete", "--mirror", "--prune") || plusRefspec(ops) {
			c.effect(EffectRewritesRemote, false, "git push rewrites or deletes remote history")
		} else {
			c.effect(EffectNetwork, false, "git push publishes commits")
		}
	case "reset":
		if has(flags, "", "--hard", "--merge", "--keep") {
			c.effect(EffectDiscardsWork, false, "git reset "+strings.Join(flags, " ")+" discards work")
		} else {
			c.concern(EffectWrites, SeverityMedium, false, "git reset moves the branch or index")
		}
	case "clean":
		if has(flags, "fxX", "--force") {
			c.effect(EffectDiscardsWork, false, "git clean deletes untracked files")
		} else {
			c.concern(EffectDeletes, SeverityMedium, false, "git clean")
		}
	case "checkout", "restore", "switch":
		discard := has(flags, "f", "--force", "--discard-changes", "--worktree", "--ours", "--theirs") || sub.s == "restore" && !has(flags, "S", "--staged") ||
			sub.s == "checkout" && has(flags, "B", "") || sub.s == "switch" && has(flags, "C", "--force-create")
		for idx, w := range rest {
			if w.s == "--" || w.s == "." || (sub.s == "checkout" && idx > 0 && rest[idx-1].s == "--") {
				discard = true
			}
		}
		if discard {
			c.effect(EffectDiscardsWork, false, "git "+sub.s+" discards uncommitted changes or resets a branch")
		} else {
			c.concern(EffectWrites, SeverityMedium, false, "git "+sub.s+" changes the working tree")
		}
	case "credential", "credential-store", "credential-cache", "credential-osxkeychain", "credential-libsecret", "credential-manager":
		// git credential fill prints the stored password for a URL.
		c.concern(EffectReads, SeverityMedium, true, "git "+sub.s+" reads or stores credentials")
	case "filter-branch", "filter-repo", "replace", "update-ref", "gc", "prune", "rerere":
		sev := SeverityMedium
		if sub.s != "rerere" && (sub.s != "gc" || has(flags, "", "--prune", "--aggressive")) {
			sev = SeverityHigh
		}
		c.concern(EffectWrites, sev, false, "git "+sub.s+" rewrites repository data")
	case "submodule", "bisect":
		for k, w := range ops {
			if w.s == "foreach" || w.s == "run" {
				c.concern(EffectExecutes, SeverityMedium, false, "git "+sub.s+" "+w.s+" runs a command")
				if w.s == "foreach" {
					c.script(Opaque, joinWords(ops[k+1:]))
				} else {
					c.wrap(Opaque, ops[k+1:])
				}
				return
			}
		}
		c.concern(EffectWrites, SeverityMedium, false, "git "+sub.s+" changes the repository")
	case "clone", "fetch", "pull", "add", "commit", "merge", "rebase", "cherry-pick", "revert",
		"am", "apply", "mv", "rm", "init", "notes", "sparse-checkout", "lfs", "format-patch", "archive", "bundle", "maintenance":
		sev := SeverityMedium
		if sub.s == "rm" && has(flags, "rf", "--force") {
			sev = SeverityHigh
		}
		if sub.s == "apply" && has(flags, "", "--unsafe-paths") {
			// git-apply(1): patches may then name paths outside the
			// working tree, and --directory may put them anywhere.
			c.concern(EffectWrites, SeverityHigh, true, "git apply --unsafe-paths writes outside the repository")
		}
		c.concern(EffectWrites, sev, false, "git "+sub.s+" changes the repository")
	default:
		c.concern(EffectUnknown, SeverityMedium, false, "git "+sub.s+" is not a known read-only subcommand (it may be an alias)")
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
			c.concern(EffectExecutes, SeverityHigh, true, "git option "+f+" runs another program")
		case "--textconv":
			c.concern(EffectExecutes, SeverityMedium, true, "git option --textconv runs configured filters")
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
	// -f FILE names the configuration file read or written: git config -f
	// ~/.gitconfig core.pager … is a global write by another name.
	files := valuesOf(c.args, "-f", "--file")
	switch verb {
	case "get", "list", "get-regexp", "get-urlmatch", "get-color", "get-colorbool":
		gitConfigFiles(c, files, OpRead)
		gitCredentialRead(c, flags, ops)
		return
	}
	writing := has(flags, "e", "--edit", "--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all") ||
		verb == "set" || verb == "unset" || verb == "edit" || verb == "rename-section" || verb == "remove-section" || len(ops) >= 2
	if !writing || has(flags, "l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch") {
		gitConfigFiles(c, files, OpRead)
		gitCredentialRead(c, flags, ops)
		return
	}
	gitConfigFiles(c, files, OpWrite)
	key, value := "", word{}
	for i, w := range ops {
		if w.s != "set" && w.s != "unset" {
			key = strings.ToLower(w.s)
			if i+1 < len(ops) {
				value = ops[i+1]
			}
			break
		}
	}
	if dangerousGitKey(key) {
		c.concern(EffectExecutes, SeverityHigh, true, "git config "+key+" makes git run a program (persistence)")
		gitAliasPayload(c, key, value)
		return
	}
	c.concern(EffectWrites, SeverityMedium, false, "git config changes configuration")
	if has(flags, "", "--global", "--system") {
		// Every repository of the user reads it, so a rule for git config
		// in this workspace does not cover it.
		c.concern(EffectSystem, SeverityHigh, true, "git config changes configuration outside the repository")
	}
}

// gitConfigFiles records the files git config -f reads or writes.
func gitConfigFiles(c *call, files []word, op Op) {
	for _, f := range files {
		c.path(f, op)
	}
}

// gitAliasPayload analyses the shell command of a "!" alias (alias.x =
// "!rm -rf ~") as the script git will run for `git x`: a wrapper is as
// severe as what it runs.
func gitAliasPayload(c *call, key string, value word) {
	if !strings.HasPrefix(key, "alias.") {
		return
	}
	if body, ok := strings.CutPrefix(value.s, "!"); ok && !value.dynamic {
		c.script(Opaque, word{s: body})
	} else if value.dynamic {
		c.unanalyzable("git alias " + key + " is set to a value known only at run time")
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
	if strings.HasPrefix(k, "pager.") || strings.HasPrefix(k, "includeif.") || strings.HasPrefix(k, "protocol.") {
		return true // protocol.ext.allow enables ext:: remotes, which run commands
	}
	// Per-name sections whose keys name programs, and URL rewrites that can
	// turn every later fetch into an ext:: command.
	section, _, _ := strings.Cut(k, ".")
	last := k[strings.LastIndexByte(k, '.')+1:]
	switch {
	case section == "url" && (last == "insteadof" || last == "pushinsteadof"),
		section == "remote" && (last == "uploadpack" || last == "receivepack" || last == "proxy"),
		(section == "difftool" || section == "mergetool" || section == "man" || section == "browser" || section == "trailer") && (last == "cmd" || last == "path" || last == "command"),
		section == "tar" && last == "command", section == "gpg" && last == "program",
		section == "submodule" && last == "update", section == "sendemail" && (last == "smtpserver" || last == "tocmd" || last == "cccmd"),
		k == "web.browser" || k == "interactive.difffilter" || k == "core.fsmonitorhookversion":
		return true
	}
	return false
}

// gitReads records the files an inspection subcommand shows: pathspecs
// (`git diff HEAD -- .env`, `git log -p .env`), both sides of `git diff
// --no-index`, and the path of a rev:path object (`git show HEAD:.env`,
// `git cat-file -p :.env`). Git cannot tell a revision from a path
// without the repository either, so every operand is taken as a possible
// path; one that names no file costs nothing.
func gitReads(c *call, sub string, ops []word) {
	switch sub {
	case "diff", "log", "show", "blame", "annotate", "whatchanged", "diff-files", "diff-index", "diff-tree", "cat-file", "grep", "ls-files", "range-diff":
	default:
		return
	}
	if sub == "grep" && len(ops) > 0 && !hasWordIn(c.args, "-e", "-f", "--") {
		ops = ops[1:] // the pattern
	}
	for _, v := range valuesOf(c.args, "-L") {
		// -L start,end:file and -L :funcname:file trace a file's lines.
		if i := strings.LastIndexByte(v.s, ':'); i >= 0 && !v.dynamic {
			c.path(word{s: v.s[i+1:]}, OpRead)
		}
	}
	for _, w := range ops {
		if w.dynamic {
			continue
		}
		if rev, p, ok := strings.Cut(w.s, ":"); ok {
			// rev:path, :path and :stage:path name a blob; :/text is a
			// commit message search.
			if _, after, staged := strings.Cut(p, ":"); staged && rev == "" {
				p = after
			}
			if p != "" && !strings.HasPrefix(p, "/") {
				c.path(word{s: p}, OpRead)
			}
			continue
		}
		c.path(w, OpRead)
	}
}

func hasWordIn(ws []word, names ...string) bool {
	for _, w := range ws {
		for _, n := range names {
			if w.s == n {
				return true
			}
		}
	}
	return false
}
