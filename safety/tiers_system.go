package safety

import "strings"

// critical handles commands that destroy systems or disks. It reports
// whether it classified c.
func critical(c *call) bool {
	b := c.base
	switch {
	case makesFilesystem(b) || b == "wipefs" || b == "fdisk" || b == "sfdisk" || b == "gdisk" ||
		b == "parted" || b == "mkswap" || b == "blkdiscard" || b == "badblocks" || b == "cryptsetup" || b == "diskutil" && len(c.args) > 0 && strings.HasPrefix(c.args[0].s, "erase"):
		c.concern(EffectSystem, SeverityCritical, true, b+" formats or erases a disk")
	case b == "shutdown" || b == "reboot" || b == "halt" || b == "poweroff":
		c.concern(EffectSystem, SeverityCritical, true, b+" stops the machine")
	case b == "init" || b == "telinit":
		c.concern(EffectSystem, SeverityCritical, true, b+" changes the run level")
	case b == "iptables" || b == "ip6tables" || b == "nft" || b == "ufw" || b == "pfctl" || b == "firewall-cmd":
		for _, w := range c.args {
			switch w.s {
			case "-F", "--flush", "flush", "disable", "-X", "--delete-chain", "-d", "--panic-on":
				c.concern(EffectSystem, SeverityCritical, true, b+" "+w.s+" removes firewall rules")
				return true
			}
		}
		c.concern(EffectSystem, SeverityHigh, false, b+" changes firewall rules")
	case b == "systemctl" || b == "service" || b == "launchctl":
		for _, w := range c.args {
			switch w.s {
			case "poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "isolate", "suspend", "hibernate":
				c.concern(EffectSystem, SeverityCritical, true, b+" "+w.s+" stops or switches the machine")
				return true
			case "status", "list-units", "list-unit-files", "is-active", "is-enabled", "show", "cat", "list", "print":
				return true
			}
		}
		c.concern(EffectSystem, SeverityHigh, false, b+" manages system services (persistence)")
	case b == "sysctl" && has(words(c.args), "w", "--write") || b == "swapoff" || b == "umount" || b == "mount":
		c.concern(EffectSystem, SeverityHigh, false, b+" changes the running system")
	case b == "visudo" || b == "passwd" || b == "userdel" || b == "groupadd" || b == "chpasswd" || b == "deluser":
		c.concern(EffectLoosensPermissions, SeverityHigh, false, b+" changes users or privileges")
	default:
		return false
	}
	return true
}

func valueOf(args []word, names ...string) string {
	v := valuesOf(args, names...)
	if len(v) == 0 {
		return ""
	}
	return strings.ToUpper(v[0].s)
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}

// valuesOf returns the values of a flag in either "-o v", "--out=v" or
// "-ov" form.
func valuesOf(args []word, names ...string) []word {
	var out []word
	for i, w := range args {
		for _, n := range names {
			switch {
			case w.s == n && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(n, "--") && strings.HasPrefix(w.s, n+"="):
				out = append(out, word{s: strings.TrimPrefix(w.s, n+"="), dynamic: w.dynamic})
			case len(n) == 2 && !strings.HasPrefix(w.s, "--") && strings.HasPrefix(w.s, n) && len(w.s) > 2:
				out = append(out, word{s: w.s[2:], dynamic: w.dynamic})
			case len(n) == 2 && len(w.s) > 2 && w.s[0] == '-' && w.s[1] != '-' && w.s[len(w.s)-1] == n[1] && isLetters(w.s[1:]) && i+1 < len(args):
				// -fsSLo FILE: the value follows a group of short flags.
				out = append(out, args[i+1])
			}
		}
	}
	return out
}

// packages handles package managers and build tools: installs, builds,
// tests and scripts are medium; publishing is high.
func packages(c *call) bool {
	b := c.base
	sub := ""
	flags, ops := opts(c.args, "-C --prefix -w --workspace --filter --cwd -p --package --manifest-path -f --file -r --requirement --index-url -i -t --target", false)
	if len(ops) > 0 {
		sub = ops[0].s
	} else if len(flags) > 0 {
		sub = flags[0] // npm --version, go -h
	}
	switch b {
	case "npm", "pnpm", "yarn", "bun", "cargo", "pip", "pip3", "pipenv", "poetry", "uv", "gem", "bundle", "composer",
		"go", "dotnet", "mvn", "mvnw", "gradle", "gradlew", "./gradlew", "mix", "hex", "swift", "deno", "conda", "mamba", "brew",
		"apt", "apt-get", "yum", "dnf", "pacman", "apk", "zypper", "port", "nix", "nix-env", "snap", "flatpak", "twine",
		"vsce", "ovsx", "gh", "docker", "podman", "kubectl", "helm", "terraform", "make", "cmake", "ninja", "meson", "bazel",
		"pytest", "tox", "nox", "jest", "vitest", "mocha", "tsc", "eslint", "prettier", "rustc", "gcc", "g++", "clang", "javac",
		"rustup", "nvm", "pyenv", "rbenv", "asdf", "mise", "just", "task", "turbo", "nx", "lerna", "webpack", "vite", "esbuild":
	default:
		return false
	}
	buildHatches(c, b)
	if m, _ := optionModelFor(b, c.args); m == nil {
		unmodelledPaths(c)
	}
	if runsCommand(b, sub) && len(ops) > 1 {
		// npm exec, uv run, bundle exec …: the rest is a command.
		c.concern(EffectRunsProject, SeverityMedium, false, b+" "+sub+" runs a command in the project environment")
		for i, w := range c.args {
			if w.s == sub && !w.dynamic {
				_, inner := opts(c.args[i+1:], "-n --name -p --prefix --with --python --package", true)
				c.wrap(Opaque, inner)
				break
			}
		}
		return true
	}
	publish := map[string]bool{"publish": true, "upload": true, "push": true, "release": true, "deploy": true, "unpublish": true, "yank": true, "owner": true}
	switch {
	case publish[sub] && b != "git":
		c.concern(EffectChangesRemote, SeverityHigh, false, b+" "+sub+" publishes to a registry or remote")
	case b == "gh" && len(ops) > 1 && (ops[1].s == "create" || ops[1].s == "delete" || ops[1].s == "upload" || ops[1].s == "merge" || ops[1].s == "edit" || sub == "api"):
		c.concern(EffectChangesRemote, SeverityHigh, false, "gh "+sub+" "+ops[1].s+" changes a remote repository")
	case b == "gh" && sub == "api":
		c.concern(EffectChangesRemote, SeverityHigh, false, "gh api can change a remote repository")
	case b == "docker" || b == "podman" || b == "kubectl" || b == "helm" || b == "terraform":
		sev := SeverityMedium
		switch sub {
		case "ps", "images", "logs", "inspect", "version", "info", "get", "describe", "validate", "fmt", "list", "ls":
			sev = SeverityNone
		case "system", "rm", "rmi", "delete", "destroy", "apply", "prune", "kill", "uninstall":
			sev = SeverityHigh
		}
		if b == "terraform" {
			iac(c)
			return true
		}
		// What runs in a container executes; what a high sub-command
		// changes is the cluster or infrastructure (kubectl, helm,
		// terraform) or the machine's own containers (docker, podman).
		eff := EffectExecutes
		if sev == SeverityNone {
			eff = EffectReads
		} else if sev == SeverityHigh && (b == "docker" || b == "podman") {
			eff = EffectSystem
		} else if sev == SeverityHigh {
			eff = EffectChangesRemote
		}
		if flags, _ := opts(c.args, "", false); has(flags, "", "--privileged") || mountsOutside(c.args) || hasValue(c.args, "--pid", "host") {
			sev, eff = SeverityHigh, EffectSystem
		}
		c.concern(eff, sev, false, b+" "+sub)
	case b == "apt" || b == "apt-get" || b == "yum" || b == "dnf" || b == "pacman" || b == "apk" || b == "zypper" || b == "snap" || b == "port":
		c.concern(EffectSystem, SeverityHigh, false, b+" changes system packages")
	case isNoneSub(b, sub), settingsQuery(b, sub, flags, ops):
		// --version, list, outdated…, go env GOPATH: inspection.
	default:
		what := "builds, tests or installs"
		if sub == "install" || sub == "add" || sub == "i" || sub == "ci" || sub == "get" || sub == "sync" {
			what = "installs packages (which can run their install scripts)"
		}
		c.concern(EffectRunsProject, SeverityMedium, false, strings.TrimSpace(b+" "+sub)+" "+what)
	}
	return true
}

// unmodelledPaths records the words of a build or test tool without an
// option model that can only name paths outside the workspace (jest
// --config /tmp/x.js, tsc -p /tmp/x, prettier --plugin=/tmp/p.js):
// configuration files and plugins there run code, so they need approval.
func unmodelledPaths(c *call) {
	for _, w := range c.args {
		v := w.s
		if strings.HasPrefix(v, "-") {
			_, v, _ = strings.Cut(v, "=")
		}
		if !w.dynamic && v != "" && outsideWorkspace(v) {
			c.path(word{s: v}, OpRead)
		}
	}
}

func runsCommand(b, sub string) bool {
	switch b + " " + sub {
	case "npm exec", "npm x", "pnpm exec", "pnpm dlx", "yarn exec", "yarn dlx", "bun x", "bun exec",
		"uv run", "poetry run", "pipenv run", "bundle exec", "conda run", "mamba run", "mise exec", "asdf exec", "nix develop":
		return true
	}
	return false
}

func isNoneSub(b, sub string) bool {
	switch sub {
	case "--version", "-v", "-V", "version", "--help", "help", "list", "ls", "outdated", "view", "info", "show", "search", "why", "doctor", "whoami":
		return true
	}
	return b == "go" && (sub == "vet" || sub == "doc" || sub == "list")
}

// mountsOutside reports a container bind mount of a host directory
// outside the workspace (-v ~:/h, -v /:/host, --volume=/etc:/e,
// --mount type=bind,source=/root,…): whatever runs inside can change it.
func mountsOutside(args []word) bool {
	for _, v := range valuesOf(args, "-v", "--volume") {
		src, _, _ := strings.Cut(v.s, ":")
		if v.dynamic || outsideWorkspace(src) {
			return true
		}
	}
	for _, v := range valuesOf(args, "--mount") {
		for _, kv := range strings.Split(v.s, ",") {
			k, src, _ := strings.Cut(kv, "=")
			if (k == "source" || k == "src") && (v.dynamic || outsideWorkspace(src)) {
				return true
			}
		}
	}
	return false
}

func hasValue(args []word, flag, contains string) bool {
	for _, v := range valuesOf(args, flag) {
		if strings.Contains(v.s, contains) || strings.HasPrefix(v.s, contains) {
			return true
		}
	}
	return false
}

// interpreter handles language runtimes: inline code and scripts are
// medium; a program read from downloaded content is critical.
func interpreter(c *call) bool {
	b := c.base
	inline := ""
	switch {
	case b == "python" || b == "python2" || b == "python3" || strings.HasPrefix(b, "python3.") || b == "pypy" || b == "pypy3":
		inline = "-c"
	case b == "node" || b == "nodejs" || b == "deno" || b == "bun" || b == "tsx" || b == "ts-node":
		inline = "-e --eval -p --print"
	case b == "perl" || b == "ruby" || b == "php" || b == "lua" || b == "luajit" || b == "Rscript" || b == "rscript":
		inline = "-e -E -r"
	case b == "osascript" || b == "powershell" || b == "pwsh" || b == "java" || b == "jshell" || b == "groovy" || b == "scala" || b == "kotlin" || b == "julia":
		inline = "-e -c -Command"
	default:
		return false
	}
	flags, ops := opts(c.args, inline+" -m -W -X", true)
	for _, f := range flags {
		if hasWord(inline, f) || clusterRunsInline(b, f) {
			for _, w := range c.args {
				if !strings.HasPrefix(w.s, "-") && inlineShell(c, w) {
					break
				}
			}
			c.concern(EffectExecutes, SeverityMedium, false, b+" "+f+" runs inline code")
			c.unvetted(f, "runs inline code, which no rule for "+b+" alone covers")
			return true
		}
	}
	if _, ok := hasPrefixFlag(flags, "-m"); ok {
		c.concern(EffectExecutes, SeverityMedium, false, b+" -m runs a module")
		return true
	}
	if len(ops) > 0 {
		switch {
		case ops[0].fetched:
			c.concern(EffectExecutes, SeverityCritical, true, b+" runs code downloaded from the network")
		case ops[0].dynamic:
			c.unanalyzable(b + " runs a script known only at run time (" + ops[0].s + ")")
		case ops[0].s == "-" && !ops[0].quoted:
			stdinScript(c) // python3 - <<< 'code': the program is stdin
		case c.a.wasDownloaded(ops[0]):
			c.path(ops[0], OpRead)
			c.concern(EffectExecutes, SeverityCritical, true, b+" runs "+ops[0].s+", downloaded earlier in this command")
		default:
			c.path(ops[0], OpRead)
			outsideScript(c, ops[0])
			c.concern(EffectRunsProject, SeverityMedium, false, b+" runs the script "+ops[0].s)
		}
		return true
	}
	if len(flags) == 1 && versionFlag(b, flags[0]) {
		return true
	}
	stdinScript(c)
	return true
}

// clusterRunsInline reports a cluster of short options in which an
// option that takes inline code is the first to take a value: perl -pe
// and -lane, ruby -ne, python3 -ic (python3 -Wc has W take "c").
func clusterRunsInline(b, f string) bool {
	if len(f) < 3 || f[0] != '-' || f[1] == '-' {
		return false
	}
	// digits: options whose value is an optional number (perl -l, -0).
	inline, valued, digits := "", "", ""
	switch {
	case strings.HasPrefix(b, "py"):
		inline, valued = "c", "cmWX"
	case b == "perl":
		inline, valued, digits = "eE", "eEiImMdDxF", "l0C"
	case b == "ruby":
		inline, valued, digits = "e", "eIrCEFiKTWx", "0l"
	default:
		return false
	}
	for i := 1; i < len(f); i++ {
		l := rune(f[i])
		switch {
		case strings.ContainsRune(valued, l):
			return strings.ContainsRune(inline, l)
		case strings.ContainsRune(digits, l):
			for i+1 < len(f) && f[i+1] >= '0' && f[i+1] <= '9' {
				i++
			}
		}
	}
	return false
}

// versionFlag reports an option with which interpreter b prints its
// version or help and exits. Short spellings differ: node -v is the
// version, python3 -v is verbose mode (and then reads a program).
func versionFlag(b, f string) bool {
	switch f {
	case "--version", "--help", "-h":
		return true
	case "-V":
		return !strings.HasPrefix(b, "node") && b != "deno" && b != "bun"
	case "-v":
		return strings.HasPrefix(b, "node") || b == "deno" || b == "bun" || b == "perl" || b == "php"
	case "-version", "-help":
		return b == "java" || b == "scala" || b == "kotlin"
	}
	return false
}

// system handles remaining commands that change the machine.
func system(c *call) bool {
	switch c.base {
	case "ldconfig", "update-alternatives", "update-rc.d", "chkconfig", "at", "batch", "anacron", "defaults", "csrutil", "spctl", "xattr", "dscl", "security":
		c.concern(EffectSystem, SeverityHigh, false, c.base+" changes system configuration or schedules commands")
		if (c.base == "at" || c.base == "batch") && (c.heredoc != nil || c.a.pipe >= stdinPipe) {
			stdinScript(c) // at now <<< 'rm -rf ~' runs the text later with sh
		}
		return true
	case "vi", "vim", "nvim", "view", "ex", "emacs", "nano", "micro", "hx", "kak":
		for _, w := range c.args {
			if strings.HasPrefix(w.s, "+") || w.s == "-c" || w.s == "--cmd" || w.s == "-S" || w.s == "--eval" || w.s == "-l" || w.s == "--load" || w.s == "-x" {
				c.concern(EffectExecutes, SeverityHigh, true, c.base+" "+w.s+" runs editor or shell commands")
				return true
			}
		}
		c.concern(EffectWrites, SeverityMedium, false, c.base+" opens an interactive editor")
		for _, w := range c.args {
			if !strings.HasPrefix(w.s, "-") {
				c.path(w, OpWrite) // an editor shows and may save what it opens
			}
		}
		return true
	case "open", "xdg-open", "start":
		c.concern(EffectExecutes, SeverityMedium, false, c.base+" opens a file or URL with another program")
		return true
	}
	return false
}

// urlOperands returns, for each URL operand, the file name a download
// saved under the URL's name gets: the last path segment, or
// index.html for a bare host.

// settingsQuery reports a read-only query of a build tool's own settings:
// go env (without -w or -u), npm/pnpm/yarn config get and list, cargo
// metadata. A setting that holds a credential is judged by the
// credential printers (tiers_credentials.go).
func settingsQuery(b, sub string, flags []string, ops []word) bool {
	switch {
	case b == "go" && sub == "env":
		return !has(flags, "wu")
	case (b == "npm" || b == "pnpm" || b == "yarn") && sub == "config" && len(ops) > 1:
		switch ops[1].s {
		case "get", "list", "ls":
			return true
		}
	case b == "cargo" && sub == "metadata":
		return true
	}
	return false
}
