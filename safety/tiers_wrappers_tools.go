package safety

import "strings"

// detachValued lists, per wrapper that runs a command detached or
// constrained, the options that take the next word as their value. They
// differ (-w is setsid's --wait but flock's --timeout), so one shared
// list let `setsid -w rm -rf ~` hide rm as an option value.
var detachValued = map[string]string{
	"setsid":      "",
	"chrt":        "",
	"taskset":     "",
	"flock":       "-w --timeout -E --conflict-exit-code",
	"chroot":      "--userspec --groups",
	"nsenter":     "-t --target -S --setuid -G --setgid -w --wd -r --root",
	"unshare":     "--map-user --map-group --setgroups --propagation -S --setuid -G --setgid -R --root -w --wd",
	"systemd-run": "-p --property -u --unit -E --setenv --description --slice -M --machine -H --host --working-directory --uid --gid --nice --on-calendar --on-active",
	"firejail":    "",
}

// toolValued lists, for tools that run the command after their options
// (tracers, fake environments, proxies, watchers), the options that take
// a value.
var toolValued = map[string]string{
	"strace":       "-o --output -e -p --attach -s --string-limit -u --user -E --env -a -b -I -O -S -X -P --trace-path",
	"ltrace":       "-o --output -e -p -s -u -a -n -A -D -F -l -x",
	"valgrind":     "",
	"fakeroot":     "-l --lib --faked -s -i -b",
	"faketime":     "-m -p -f",
	"xvfb-run":     "-n --server-num -f --auth-file -e --error-file -p --xauth-protocol -s --server-args -w --wait",
	"dbus-launch":  "--config-file",
	"ssh-agent":    "-a -E -t -P -O",
	"proxychains":  "-f",
	"proxychains4": "-f",
	"torsocks":     "-u -p -a -P -d",
	"catchsegv":    "",
	"entr":         "",
	"runuser":      "-u --user -g --group -G --supp-group -s --shell -w --whitelist-environment",
}

// gdb runs the program after --args, and its -ex and -x commands include
// `shell`, so those need a person whatever rule names gdb.
func gdb(c *call) {
	// -ex 'shell rm -rf ~' (or '!…') runs that line in a shell.
	for _, v := range valuesOf(c.args, "-ex", "--ex", "-eval-command", "--eval-command") {
		line := strings.TrimSpace(v.s)
		if rest, ok := strings.CutPrefix(line, "shell "); ok && !v.dynamic {
			c.script(Opaque, word{s: rest})
		} else if rest, ok := strings.CutPrefix(line, "!"); ok && !v.dynamic {
			c.script(Opaque, word{s: rest})
		}
	}
	for i, w := range c.args {
		switch {
		case w.s == "--args":
			c.wrap(Opaque, c.args[i+1:])
			return
		case w.s == "-ex" || w.s == "--ex" || w.s == "-x" || w.s == "--command" || w.s == "-eval-command" || w.s == "--eval-command" ||
			strings.HasPrefix(w.s, "--eval-command=") || strings.HasPrefix(w.s, "--command="):
			c.concern(EffectExecutes, SeverityHigh, true, "gdb "+w.s+" runs debugger commands, which can run shell commands")
		}
	}
	c.concern(EffectExecutes, SeverityMedium, false, "gdb runs and inspects a program")
	unknownOperands(c)
}

// tool judges a tool that runs the command after its options as severe
// as that command: `strace rm -rf ~` deletes the home directory. The
// wrapper needs a rule of its own.
func tool(c *call) {
	for _, v := range valuesOf(c.args, "-o", "--output") {
		if c.base == "strace" || c.base == "ltrace" {
			c.path(v, OpWrite)
		}
	}
	if c.base == "runuser" {
		c.concern(EffectSystem, SeverityHigh, false, "runuser runs a command as another user")
		for _, v := range valuesOf(c.args, "-c", "--command") {
			c.script(Opaque, v)
			return
		}
	}
	_, inner := opts(c.args, toolValued[c.base], true)
	if c.base == "faketime" && len(inner) > 0 {
		inner = inner[1:] // the time stamp
	}
	c.wrap(Opaque, inner)
}
