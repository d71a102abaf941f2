package safety

import "strings"

// gitHatches judges subcommand options that escapeHatch's flag names miss
// because their meaning depends on the subcommand, or because they hide
// in a cluster of short options: `git grep -iO'cmd'` opens matches with a
// program, `git ls-remote -u cmd` and `git clone -u cmd` run it as the
// upload pack, `git difftool -x cmd` as the diff tool; ext:: remotes run a
// command as the transport. It also records the files such options read
// or write (`git blame --contents=.env`, `git archive -o hook`).
func gitHatches(c *call, sub string, rest []word, flags []string, ops []word) {
	for _, f := range flags {
		short := len(f) > 2 && f[0] == '-' && f[1] != '-'
		switch {
		case sub == "grep" && short && strings.Contains(f, "O"):
			c.concern(EffectExecutes, SeverityHigh, true, "git grep "+f+" opens the matches with another program")
		case (sub == "ls-remote" || sub == "clone") && short && strings.Contains(f, "u"):
			c.concern(EffectExecutes, SeverityHigh, true, "git "+sub+" "+f+" runs another program as the upload pack")
		}
	}
	switch sub {
	case "clone", "init":
		if _, ok := hasPrefixFlag(flags, "--template"); ok {
			c.concern(EffectExecutes, SeverityHigh, true, "git "+sub+" --template copies hooks from a template directory (persistence)")
		}
		if sub == "clone" {
			for _, v := range valuesOf(rest, "-c", "--config") {
				c.concern(EffectExecutes, SeverityHigh, true, "git clone -c "+v.s+" sets configuration, which can run programs")
			}
		}
	case "mv", "rm", "restore", "checkout":
		// git mv .env public.txt && cat public.txt: the working-tree files
		// these move, delete or overwrite are writes.
		for i, w := range ops {
			if sub == "checkout" && i == 0 && !hasWordIn(rest, "--") {
				continue // the branch or commit
			}
			c.path(w, OpWrite)
		}
	case "add", "stage":
		for _, w := range ops {
			c.path(w, OpRead) // staged content is committed and pushed later
		}
	case "commit", "tag", "merge", "notes":
		// A message file or template goes into history: -F .env commits a
		// secret.
		for _, v := range valuesOf(rest, "-F", "--file", "-t", "--template") {
			c.path(v, OpRead)
		}
	}
	switch sub {
	case "ls-remote", "clone":
		if has(flags, "u") {
			c.concern(EffectExecutes, SeverityHigh, true, "git "+sub+" -u runs another program as the upload pack")
		}
	case "difftool", "mergetool":
		if _, ok := hasPrefixFlag(flags, "-x", "--extcmd", "-t", "--tool"); ok {
			c.concern(EffectExecutes, SeverityHigh, true, "git "+sub+" runs the diff or merge program given")
		}
	case "blame", "annotate":
		for _, v := range valuesOf(rest, "--contents") {
			c.path(v, OpRead)
		}
	case "archive":
		for _, v := range valuesOf(rest, "-o", "--output") {
			c.path(v, OpWrite)
		}
		if _, ok := hasPrefixFlag(flags, "--exec", "--remote"); ok {
			c.concern(EffectExecutes, SeverityHigh, true, "git archive --remote/--exec runs another program")
		}
	case "format-patch":
		for _, v := range valuesOf(rest, "-o", "--output-directory") {
			c.path(v, OpWrite)
		}
	case "bundle":
		if len(ops) > 1 && ops[0].s == "create" {
			c.path(ops[1], OpWrite)
		}
	}
	for _, w := range ops {
		if strings.HasPrefix(w.s, "ext::") || strings.HasPrefix(w.s, "fd::") {
			c.concern(EffectExecutes, SeverityHigh, true, "git remote "+w.s+" runs a command as the transport")
		}
	}
}

// withoutList drops the list flags that a later --no-list cancels.
func withoutList(flags []string) []string {
	var out []string
	for _, f := range flags {
		switch f {
		case "-l", "--list", "--no-list":
			continue
		}
		out = append(out, f)
	}
	return out
}

// gitCredentialRead flags a git config read of a key that holds a
// credential: credential.* (helpers and their usernames), an
// http.<url>.extraheader (actions/checkout keeps the job's token there),
// keys named like passwords or tokens, and every --get-urlmatch, which
// resolves exactly the per-URL settings credentials live in. Such a read
// prints a secret, so the read-only approval does not cover it.
//
// Listing the whole configuration (git config -l) and the remotes (git
// remote -v) stay read-only although a remote URL may embed a token
// (https://user:token@host/…): they are among the commands agents run
// most, the token there is the user's own choice of storage, and the
// file tools judge reading .git/config the same way.
func gitCredentialRead(c *call, flags []string, ops []word) {
	if has(flags, "", "--get-urlmatch") || len(ops) > 0 && ops[0].s == "get-urlmatch" {
		c.concern(EffectReads, SeverityMedium, true, "git config --get-urlmatch prints the settings for a URL, where credentials and auth headers live")
		return
	}
	for _, w := range ops {
		if k := strings.ToLower(w.s); credentialKey(k) {
			c.concern(EffectReads, SeverityMedium, true, "git config reads "+w.s+", which holds credentials")
			return
		}
	}
}

// credentialKey reports a git configuration key (or --get-regexp
// pattern) that names a credential setting.
func credentialKey(k string) bool {
	return strings.HasPrefix(k, "credential") || strings.Contains(k, "extraheader") ||
		strings.Contains(k, "password") || strings.Contains(k, "token") || strings.Contains(k, "secret")
}
