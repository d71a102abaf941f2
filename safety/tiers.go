package safety

import "strings"

// classify sets the tier of one command by its base name. The tables are
// deliberately explicit: a command not named here is unknown, and unknown
// commands are medium (they need a rule or a human).
func classify(c *call) {
	switch c.base {
	// Wrappers and scripts (tiers_wrappers.go).
	case "sudo", "doas", "pkexec", "run0", "su", "env", "timeout", "nice", "ionice", "nohup",
		"stdbuf", "command", "builtin", "time", "setsid", "chrt", "taskset", "xargs", "parallel",
		"watch", "eval", "exec", "source", ".", "trap", "npx", "pnpx", "bunx", "uvx", "pipx",
		"flock", "script", "unbuffer", "caffeinate", "chroot", "nsenter", "unshare", "systemd-run", "firejail",
		"and", "or", "not", "strace", "ltrace", "valgrind", "fakeroot", "faketime", "xvfb-run", "dbus-launch",
		"ssh-agent", "proxychains", "proxychains4", "torsocks", "catchsegv", "entr", "runuser", "gdb":
		wrapper(c)
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox", "toybox":
		shell(c)

	// Files (tiers_files.go).
	case "rm", "rmdir", "unlink", "shred", "wipe", "srm":
		remove(c)
	case "rimraf", "del-cli", "trash":
		// Node's rm -rf, usually run through npx: npx rimraf ~.
		c.args = append([]word{{s: "-rf"}}, c.args...)
		remove(c)
	case "chmod", "chown", "chgrp", "chattr", "setfacl":
		permissions(c)
	case "cp", "mv", "install", "ln", "link", "rsync", "scp", "sftp":
		copyMove(c)
	case "tee", "touch", "mkdir", "truncate", "mkfifo", "mknod", "patch", "tar", "unzip", "gunzip",
		"gzip", "zip", "bzip2", "xz", "unxz", "7z":
		writeFiles(c)
	case "dd":
		dd(c)
	case "sed", "gsed":
		sed(c)
	case "find", "fd", "fdfind":
		find(c)

	// Version control (tiers_git.go).
	case "git":
		git(c)

	case "fc":
		historyReplay(c)

	// Everything else (tiers_tools.go), and the credential printers of
	// cloud and cluster CLIs (tiers_credentials.go).
	default:
		tools(c)
		credentials(c)
		if c.base == "yq" {
			yqReads(c)
		}
	}
	families(c) // tiers_families.go
}

// opts splits args into flags and operands. Flags stop at "--" or at the
// first operand when posixStop is set. valued names the flags that take
// the next word as their value (their values are skipped).
func opts(args []word, valued string, posixStop bool) (flags []string, operands []word) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.s == "--" && !w.dynamic {
			if operands == nil {
				return flags, args[i+1:] // shares args: wrappers nest deeply
			}
			operands = append(operands, args[i+1:]...)
			return
		}
		if !w.dynamic && len(w.s) > 1 && w.s[0] == '-' {
			flags = append(flags, w.s)
			if takesValue(w.s, valued) && i+1 < len(args) {
				i++
			}
			continue
		}
		if posixStop {
			if operands == nil {
				return flags, args[i:]
			}
			operands = append(operands, args[i:]...)
			return
		}
		operands = append(operands, w)
	}
	return
}

// takesValue reports whether flag f (as written) consumes the next word:
// valued is a space-separated list such as "-n -o --output".
func takesValue(f, valued string) bool {
	if valued == "" || strings.Contains(f, "=") {
		return false
	}
	if strings.HasPrefix(f, "--") {
		return hasWord(valued, f)
	}
	// Combined short flags (-rn): a value belongs to the last letter.
	return hasWord(valued, "-"+f[len(f)-1:])
}

// hasWord reports whether w is one of the space-separated words in list,
// without allocating (it runs for every flag of every command).
func hasWord(list, w string) bool {
	for list != "" {
		var x string
		x, list, _ = strings.Cut(list, " ")
		if x == w {
			return true
		}
	}
	return false
}

// has reports whether flags contain the short letter l (in any combined
// group) or one of the long names.
func has(flags []string, letters string, long ...string) bool {
	for _, f := range flags {
		if strings.HasPrefix(f, "--") {
			name, _, _ := strings.Cut(f, "=")
			for _, l := range long {
				if name == l {
					return true
				}
			}
			continue
		}
		if strings.ContainsAny(f[1:], letters) && letters != "" {
			return true
		}
	}
	return false
}

// hasPrefixFlag reports a flag that starts with any of prefixes.
func hasPrefixFlag(flags []string, prefixes ...string) (string, bool) {
	for _, f := range flags {
		for _, p := range prefixes {
			if f == p || strings.HasPrefix(f, p+"=") || (len(p) == 2 && strings.HasPrefix(f, p) && !strings.HasPrefix(f, "--")) {
				return f, true
			}
		}
	}
	return "", false
}

func words(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
	}
	return out
}
