package safety

import "strings"

// This file unwraps commands that run other commands. Transparent
// wrappers only change how the inner command runs; opaque ones change who
// runs it, when, or with what input, so they need a rule of their own.

func wrapper(c *call) {
	switch c.base {
	case "sudo", "doas", "pkexec", "run0":
		c.concern(EffectSystem, SeverityHigh, false, c.base+" runs a command with elevated privileges")
		flags, inner := opts(c.args, "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role -t --type -U --other-user -T --command-timeout -a", true)
		if has(flags, "sie", "--shell", "--login", "--edit") && len(inner) == 0 {
			c.concern(EffectSystem, SeverityHigh, true, c.base+" opens a root shell or editor")
		}
		saved := c.a.cwd
		for _, d := range valuesOf(c.args[:len(c.args)-len(inner)], "-D", "--chdir") {
			c.wrapIn(d) // sudo -D / rm -rf . deletes /
		}
		c.wrap(Opaque, envPrefix(c, inner))
		c.a.cwd = saved
	case "su":
		c.concern(EffectSystem, SeverityHigh, false, "su switches user")
		c.a.res.Commands[c.idx].Wrapper = Opaque
		for i, w := range c.args {
			if (w.s == "-c" || w.s == "--command") && i+1 < len(c.args) {
				c.script(Opaque, c.args[i+1])
			}
		}
	case "env":
		envCmd(c)
	case "timeout":
		_, ops := opts(c.args, "-s --signal -k --kill-after", true)
		if len(ops) > 0 {
			c.wrap(Transparent, ops[1:])
		}
	case "nice", "ionice", "stdbuf", "caffeinate":
		valued := map[string]string{
			"nice":       "-n --adjustment",
			"ionice":     "-c --class -n --classdata -p --pid -P --pgid -u --uid",
			"stdbuf":     "-i -o -e --input --output --error",
			"caffeinate": "-w -t",
		}[c.base]
		_, inner := opts(c.args, valued, true)
		c.wrap(Transparent, inner)
	case "nohup", "builtin", "unbuffer":
		// nohup -- cmd; unbuffer -p reads the command's input from stdin.
		_, inner := opts(c.args, "", true)
		c.wrap(Transparent, inner)
	case "strace", "ltrace", "valgrind", "fakeroot", "faketime", "xvfb-run", "dbus-launch", "ssh-agent",
		"proxychains", "proxychains4", "torsocks", "catchsegv", "entr", "runuser":
		tool(c)
	case "gdb":
		gdb(c)
	case "and", "or", "not":
		// fish's combiners run the command after them (fish -c 'true; and
		// rm -rf ~'); in bash no such command exists.
		c.wrap(Transparent, c.args)
	case "command":
		flags, inner := opts(c.args, "", true)
		if has(flags, "vV") {
			return // a lookup, runs nothing
		}
		c.wrap(Transparent, inner)
	case "time":
		_, inner := opts(c.args, "-f --format -o --output", true)
		for i, w := range c.args {
			if (w.s == "-o" || w.s == "--output") && i+1 < len(c.args) {
				c.path(c.args[i+1], OpWrite)
				c.concern(EffectWrites, SeverityMedium, true, "time writes its report to a file")
			}
		}
		c.wrap(Transparent, inner)
	case "setsid", "chrt", "taskset", "flock", "chroot", "nsenter", "unshare", "systemd-run", "firejail":
		_, inner := opts(c.args, detachValued[c.base], true)
		switch c.base {
		case "chrt", "taskset", "flock", "chroot":
			if len(inner) > 0 {
				if c.base == "flock" {
					for i, w := range c.args {
						if (w.s == "-c" || w.s == "--command") && i+1 < len(c.args) {
							c.script(Opaque, c.args[i+1])
							return
						}
					}
				}
				inner = inner[1:] // the priority, mask, lock file or new root
			}
		}
		switch c.base {
		case "chroot", "nsenter", "unshare", "systemd-run":
			c.concern(EffectSystem, SeverityHigh, false, c.base+" runs a command in another system context")
		default:
			c.concern(EffectInert, SeverityNone, false, c.base+" runs a command detached or constrained")
		}
		c.wrap(Opaque, inner)
	case "xargs", "parallel":
		_, inner := opts(c.args, "-I -n --max-args -L --max-lines -P --max-procs -s --max-chars -d --delimiter -E -a --arg-file -j --jobs -S --sshlogin", true)
		for _, f := range valuesOf(c.args[:len(c.args)-len(inner)], "-a", "--arg-file") {
			c.path(f, OpRead) // -a F, -aF, --arg-file=F
		}
		// With -I R (or -i, meaning {}), R in the inner words is replaced
		// by input: those words are known only at run time.
		replace := ""
		for i, w := range c.args {
			switch {
			case w.s == "-I" && i+1 < len(c.args):
				replace = c.args[i+1].s
			case strings.HasPrefix(w.s, "-I") && len(w.s) > 2:
				replace = w.s[2:]
			case w.s == "-i" || strings.HasPrefix(w.s, "--replace"):
				replace = "{}"
			}
		}
		if replace != "" {
			inner = append([]word(nil), inner...)
			for i := range inner {
				if strings.Contains(inner[i].s, replace) {
					inner[i] = word{s: inner[i].s, dynamic: true}
				}
			}
		}
		input := []word{{s: "{input}", dynamic: true, files: c.a.pipeFiles}}
		for i, w := range inner {
			if w.s == ":::" {
				input = inner[i+1:]
				inner = inner[:i]
				break
			}
		}
		if len(inner) == 0 {
			c.a.res.Commands[c.idx].Wrapper = Opaque
			return // runs echo
		}
		// The inner command also receives words from the input.
		inner = append(append([]word(nil), inner...), input...)
		if c.base == "xargs" && xargsPlain(c.args[:len(c.args)-len(inner)+len(input)]) {
			// xargs with options that only batch its input runs the
			// inner command as timeout does: judged by that command,
			// with the input words as run-time arguments.
			c.wrap(Transparent, inner)
			return
		}
		c.wrap(Opaque, inner)
	case "watch":
		// -d (--differences) is a flag; its optional value needs "=".
		flags, inner := opts(c.args, "-n --interval -q --equexit", true)
		if has(flags, "x", "--exec") {
			c.wrap(Opaque, inner)
			return
		}
		c.script(Opaque, joinWords(inner))
	case "eval":
		if len(c.args) == 0 {
			return
		}
		if plainWords(c.args) {
			// eval of words with no shell syntax runs exactly those words.
			c.wrap(Opaque, c.args)
			return
		}
		c.script(Opaque, joinWords(c.args))
	case "trap":
		_, ops := opts(c.args, "", true)
		if len(ops) >= 2 && ops[0].s != "-" && ops[0].s != "" {
			c.script(Opaque, ops[0])
		} else {
			c.a.res.Commands[c.idx].Wrapper = Opaque
		}
	case "exec":
		_, inner := opts(c.args, "-a", true)
		if len(inner) == 0 {
			return // only redirects the shell's own descriptors
		}
		c.wrap(Opaque, inner)
	case "source", ".":
		c.a.res.Commands[c.idx].Wrapper = Opaque
		if len(c.args) == 0 {
			return
		}
		f := c.args[0]
		switch {
		case f.fetched:
			c.concern(EffectExecutes, SeverityCritical, true, c.base+" runs code downloaded from the network")
		case f.dynamic && f.printed:
			c.a.analyzeScript(f.payload, c.idx, c.a.depth+1) // source <(echo '…')
		case f.dynamic:
			c.unanalyzable(c.base + " of a script known only at run time (" + f.s + ")")
			if f.pipe {
				c.a.worstReading(c.idx, c.a.worstOf(f)) // source <(echo rm -rf ~)
			}
		case descriptorScript(c, f):
		case c.a.wasDownloaded(f):
			c.path(f, OpRead)
			c.concern(EffectExecutes, SeverityCritical, true, c.base+" runs "+f.s+", downloaded earlier in this command")
		default:
			c.path(f, OpRead)
			outsideScript(c, f)
			c.concern(EffectRunsProject, SeverityMedium, false, c.base+" runs the script "+f.s+" in the current shell")
		}
	case "npx", "pnpx", "bunx", "uvx", "pipx":
		c.concern(EffectExecutes, SeverityMedium, false, c.base+" downloads and runs a package")
		for i, w := range c.args {
			if (w.s == "-c" || w.s == "--call") && i+1 < len(c.args) {
				c.script(Opaque, c.args[i+1])
				return
			}
		}
		_, inner := opts(c.args, "-p --package --from --python --spec", true)
		if c.base == "pipx" && len(inner) > 0 && (inner[0].s == "run" || inner[0].s == "install") {
			inner = inner[1:]
		}
		c.wrap(Opaque, inner)
	case "script":
		// The typescript and the logs are written: script .git/hooks/x.
		_, ops := opts(c.args, "-c --command -E --echo -I --log-in -O --log-out -B --log-io -T --log-timing -m --logging-format", false)
		for _, w := range append(ops, valuesOf(c.args, "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing")...) {
			c.path(w, OpWrite)
		}
		// -c clusters with script's flags: script -qc 'cmd' /dev/null.
		for _, v := range valuesOf(c.args, "-c", "--command") {
			c.script(Opaque, v)
			return
		}
		c.concern(EffectWrites, SeverityMedium, false, "script records a shell session")
	}
}

// wrapIn makes the command a wrapper run in dir: relative paths of the
// command it runs resolve there, as after a literal cd. The caller
// restores the script's directory once the wrapped command is judged.
func (c *call) wrapIn(dir word) {
	c.path(dir, OpChdir)
	c.a.chdir([]word{dir})
}

// plainWords reports words that re-parse to themselves: no quoting,
// expansion, operator, glob or blank characters.
func plainWords(ws []word) bool {
	for _, w := range ws {
		if w.dynamic || w.s == "" {
			return false
		}
		for i := 0; i < len(w.s); i++ {
			c := w.s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:@%+,-", c) >= 0) {
				return false
			}
		}
	}
	return true
}

// joinWords rebuilds a script from words the way eval and watch do: the
// values joined by spaces. A dynamic word makes the script dynamic.
func joinWords(ws []word) word {
	if len(ws) == 1 {
		return ws[0] // keeps what is known of it (a printed payload)
	}
	out := word{}
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		out.dynamic = out.dynamic || w.dynamic
		out.fetched = out.fetched || w.fetched
		parts = append(parts, w.s)
	}
	out.s = strings.Join(parts, " ")
	if out.dynamic {
		out.joined = ws
	}
	return out
}

// shell judges bash, sh and friends: a literal -c script is analysed as
// if typed (transparent); a script file, a pipe or a dynamic script is
// not visible and needs approval.
func shell(c *call) {
	if c.base == "busybox" || c.base == "toybox" {
		c.wrap(Transparent, c.args)
		return
	}
	args := c.args
	hasC := false
	i := 0
	for i < len(args) {
		s := args[i].s
		if args[i].dynamic {
			break
		}
		if s == "--" {
			i++
			break
		}
		if s == "-o" || s == "+o" || s == "-O" || s == "+O" || s == "--rcfile" || s == "--init-file" {
			if (s == "--rcfile" || s == "--init-file") && i+1 < len(args) {
				c.path(args[i+1], OpRead)
			}
			i += 2
			continue
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
			if s[1] != '-' && strings.Contains(s[1:], "c") {
				hasC = true
			}
			i++
			continue
		}
		break
	}
	args = args[min(i, len(args)):]
	switch {
	case hasC && len(args) > 0:
		if args[0].fetched {
			c.concern(EffectExecutes, SeverityCritical, true, c.base+" -c runs code downloaded from the network")
			return
		}
		c.script(Transparent, args[0])
	case hasC:
		c.unanalyzable(c.base + " -c without a script")
	case len(args) > 0:
		f := args[0]
		c.a.res.Commands[c.idx].Wrapper = Opaque
		switch {
		case f.fetched:
			c.concern(EffectExecutes, SeverityCritical, true, c.base+" runs code downloaded from the network")
		case f.dynamic && f.printed:
			c.a.analyzeScript(f.payload, c.idx, c.a.depth+1) // bash <(echo '…')
		case f.dynamic:
			c.unanalyzable(c.base + " runs a script known only at run time (" + f.s + ")")
			if f.pipe {
				c.a.worstReading(c.idx, c.a.worstOf(f)) // bash <(echo rm -rf ~)
			}
		case descriptorScript(c, f):
		case c.a.wasDownloaded(f):
			c.path(f, OpRead)
			c.concern(EffectExecutes, SeverityCritical, true, c.base+" runs "+f.s+", downloaded earlier in this command")
		default:
			c.path(f, OpRead)
			outsideScript(c, f)
			c.concern(EffectRunsProject, SeverityMedium, false, c.base+" runs the script "+f.s)
		}
	default:
		stdinScript(c)
	}
}

// descriptorScript judges a script named by a file descriptor path:
// `source /dev/stdin` and `bash /dev/fd/0` run whatever is piped in,
// exactly like `| sh`; another descriptor (`. /dev/fd/3 3<<<…`) holds
// content no argument shows. It reports whether f was such a path.
func descriptorScript(c *call, f word) bool {
	p := cleanPath(f.s)
	fd := ""
	switch {
	case p == "/dev/stdin":
		fd = "0"
	case strings.HasPrefix(p, "/dev/fd/"):
		fd = strings.TrimPrefix(p, "/dev/fd/")
	case strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"):
		fd = p[strings.LastIndex(p, "/fd/")+4:]
	default:
		return false
	}
	if fd == "0" {
		stdinScript(c)
		return true
	}
	c.unanalyzable(c.base + " runs a script read from file descriptor " + fd + " (" + f.s + "), whose content cannot be seen")
	return true
}

// xargsOptions are the options of GNU and BSD xargs that only shape how
// input is batched, quoted and shown.
var xargsOptions = map[string]bool{
	"-0": true, "--null": true, "-n": true, "--max-args": true, "-L": true, "--max-lines": true, "-P": true,
	"--max-procs": true, "-r": true, "--no-run-if-empty": true, "-d": true, "--delimiter": true, "-t": true,
	"--verbose": true, "-s": true, "--max-chars": true, "-x": true, "--exit": true, "-I": true, "-i": true,
	"--replace": true,
}

// xargsPlain reports whether each of xargs's own options (ws, before the
// command it runs) is one of xargsOptions, with its value.
func xargsPlain(ws []word) bool {
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if w.dynamic {
			return false
		}
		if !strings.HasPrefix(w.s, "-") {
			continue // a value of the option before it
		}
		name, _, _ := strings.Cut(w.s, "=")
		if !strings.HasPrefix(name, "--") && len(name) > 2 {
			name = name[:2] // -n1, -I{}: the first letter decides
		}
		if !xargsOptions[name] {
			return false
		}
	}
	return true
}
