package safety

import (
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Families of commands whose severity the tables by name missed (issue
// 25): inline interpreter code that starts a shell, history replayed by
// fc, tunnels that publish a local port to the internet, servers that
// publish the root of the file system, mass truncation, and a linker
// named inside go's -ldflags.
// Each is judged by its effect.

// shellCall matches the calls by which inline Python, Node, Perl, Ruby,
// PHP and JVM code starts another program (GTFOBins' "Shell" entries for
// each interpreter).
var shellCall = lazyregexp.New(`\b(os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|subprocess|pty\.spawn|commands\.getoutput|child_process|execSync|execFileSync|spawnSync|Deno\.run|Deno\.Command|Bun\.spawn|IO\.popen|Open3|Kernel\.system|shell_exec|passthru|proc_open|pcntl_exec|popen|Runtime\.getRuntime|ProcessBuilder)\b|\b(system|exec|spawn)\s*[\( '"]|\bqx\s*[\{\(/|]|%x[\{\(\[]|` + "`")

// inlineShell raises inline code that starts a program: python3 -c
// 'import os; os.system(…)' is a shell command in another spelling.
func inlineShell(c *call, code word) bool {
	if code.dynamic || !shellCall.MatchString(code.s) {
		return false
	}
	c.concern(EffectExecutes, SeverityHigh, false, c.base+" inline code runs a shell or another program")
	// Each string literal may be the command it runs: one whose reading
	// is critical (os.system("rm -rf ~")) makes the line critical.
	for _, m := range codeLiteral.FindAllStringSubmatch(code.s, 16) {
		if lit := m[1] + m[2]; strings.ContainsAny(lit, " /~") {
			c.a.worstReading(c.idx, lit)
		}
	}
	return true
}

// codeLiteral matches a simple double- or single-quoted string literal
// of inline code.
var codeLiteral = lazyregexp.New(`"([^"\\]*)"|'([^'\\]*)'`)

// outsideScript raises a script run from outside the workspace: its
// content was never shown for approval and may change at any time.
func outsideScript(c *call, f word) bool {
	if f.dynamic || !outsideWorkspace(c.a.resolve(f.s)) {
		return false
	}
	c.concern(EffectExecutes, SeverityHigh, false, c.base+" runs "+f.s+", a script from outside the workspace")
	return true
}

// historyReplay judges fc, which re-runs commands from the shell's
// history (bash(1), "fc -s" and "fc -e"): what runs is not on the line.
func historyReplay(c *call) {
	for _, w := range c.args {
		if w.s == "-l" || strings.HasPrefix(w.s, "-l") && !strings.ContainsAny(w.s, "se") {
			c.concern(EffectReads, SeverityNone, false, "fc -l lists history")
			return
		}
	}
	c.concern(EffectExecutes, SeverityHigh, true, "fc re-runs commands from the shell's history, which the line does not show")
}

// tunnels are commands that publish a local port on a public address:
// ngrok, Cloudflare quick tunnels, localtunnel, Tailscale Funnel, bore,
// and ssh -R to a forwarding service (serveo, localhost.run).
func tunnel(c *call) bool {
	var ops []string
	for _, w := range c.args {
		if !strings.HasPrefix(w.s, "-") {
			ops = append(ops, w.s)
		}
	}
	first := ""
	if len(ops) > 0 {
		first = ops[0]
	}
	switch c.base {
	case "ngrok":
		if first == "config" || first == "version" || first == "help" || first == "" {
			return false
		}
	case "cloudflared":
		if first != "tunnel" && !hasAnyOption(c.args, []string{"--url"}) {
			return false
		}
	case "lt", "localtunnel", "bore", "pinggy", "zrok", "loophole", "localxpose":
	case "tailscale":
		if first != "funnel" && first != "serve" {
			return false
		}
	case "kubectl":
		// kubectl proxy listens on 127.0.0.1 unless --address says
		// otherwise; --www serves a directory beside the API.
		addr := valueOf(c.args, "--address")
		local := addr == "" || addr == "127.0.0.1" || addr == "localhost" || addr == "::1"
		if first != "proxy" || local && valueOf(c.args, "--www", "-w") == "" {
			return false
		}
	case "ssh", "autossh":
		if !hasAnyOption(c.args, []string{"-R"}) && !strings.Contains(strings.Join(ops, " "), "-R") {
			return false
		}
	default:
		return false
	}
	c.effect(EffectExposesPort, false, c.base+" publishes a local port to other machines")
	return true
}

// servesRoot judges the one-line web servers given a directory outside
// the workspace to serve: python3 -m http.server -d /, php -S … -t /,
// busybox httpd -h /, npx http-server /, ruby -run -e httpd /.
func servesRoot(c *call) {
	var dir word
	found := false
	args := c.args
	switch c.base {
	case "python", "python3", "python2":
		i := indexOf(args, "http.server")
		if i < 0 || i == 0 || args[i-1].s != "-m" {
			return
		}
		for _, v := range valuesOf(args[i+1:], "-d", "--directory") {
			dir, found = v, true
		}
	case "php":
		if !hasAnyOption(args, []string{"-S"}) {
			return
		}
		for _, v := range valuesOf(args, "-t") {
			dir, found = v, true
		}
	case "busybox":
		if indexOf(args, "httpd") < 0 {
			return
		}
		for _, v := range valuesOf(args, "-h") {
			dir, found = v, true
		}
	case "http-server", "serve", "live-server":
		for _, w := range args {
			if !strings.HasPrefix(w.s, "-") {
				dir, found = w, true
				break
			}
		}
	case "ruby":
		i := indexOf(args, "httpd")
		if i < 0 || i+1 >= len(args) {
			return
		}
		dir, found = args[i+1], true
	default:
		return
	}
	if !found || !dir.dynamic && !outsideWorkspace(c.a.resolve(dir.s)) {
		return
	}
	c.path(dir, OpRead)
	c.effect(EffectExposesPort, true, c.base+" serves "+dir.s+", outside the workspace, to the network")
}

// massTruncate raises truncate over many files or a glob: truncate -s 0
// *.go empties every source file at once.
func massTruncate(c *call) {
	if c.base != "truncate" {
		return
	}
	n := 0
	for i, w := range c.args {
		if strings.HasPrefix(w.s, "-") || i > 0 && (c.args[i-1].s == "-s" || c.args[i-1].s == "--size" || c.args[i-1].s == "-r" || c.args[i-1].s == "--reference") {
			continue
		}
		if w.glob || w.dynamic || w.files != nil {
			n += 2
		}
		n++
	}
	if n > 1 {
		c.concern(EffectDeletes, SeverityHigh, false, "truncate changes the size of many files at once")
	}
}

// helperPrograms raises options that name a program the tool runs
// inside another option's value: go build -ldflags=-extld=….
func helperPrograms(c *call) {
	switch c.base {
	case "go":
		for _, v := range valuesOf(goFlagArgs(c.args), "--ldflags", "--gccgoflags") {
			if strings.Contains(v.s, "-extld") {
				c.concern(EffectExecutes, SeverityHigh, false, "go -ldflags "+v.s+" names the external linker, a program go runs")
				c.unvetted("-ldflags="+v.s, "names a linker program")
			}
		}
	}
}

// goFlagArgs respells go's one-dash options with two ("-ldflags=x" as
// "--ldflags=x") so that valuesOf finds them by their long names.
func goFlagArgs(args []word) []word {
	out := make([]word, len(args))
	for i, w := range args {
		if len(w.s) > 2 && w.s[0] == '-' && w.s[1] != '-' {
			w.s = "-" + w.s
		}
		out[i] = w
	}
	return out
}

func indexOf(ws []word, s string) int {
	for i, w := range ws {
		if !w.dynamic && w.s == s {
			return i
		}
	}
	return -1
}

// fileLists judges options that read the names of the files to work on
// from a file or stdin (GNU tar --files-from, zip -@, rsync --files-from,
// cpio -o, 7z @list): the files themselves are named only at run time,
// so no check can see whether one is a secret or lies outside the
// workspace. The list is read; the option is unvetted, so only a rule
// naming it covers the command.
func fileLists(c *call) {
	why := "reads the names of the files to work on from a list, so which files are read cannot be checked"
	switch c.base {
	case "tar", "gtar", "bsdtar":
		for i, w := range c.args {
			switch {
			case w.dynamic:
			case (w.s == "-T" || w.s == "--files-from") && i+1 < len(c.args):
				c.path(c.args[i+1], OpRead)
				c.unvetted(w.s+" "+c.args[i+1].s, why)
			case strings.HasPrefix(w.s, "--files-from="):
				c.path(word{s: strings.TrimPrefix(w.s, "--files-from=")}, OpRead)
				c.unvetted(w.s, why)
			case strings.HasPrefix(w.s, "-T"):
				c.path(word{s: w.s[2:]}, OpRead)
				c.unvetted(w.s, why)
			}
		}
	case "zip":
		for _, w := range c.args {
			if w.s == "-@" || w.s == "--names-stdin" {
				c.unvetted(w.s, why)
			}
		}
	case "rsync":
		for _, v := range valuesOf(c.args, "--files-from") {
			c.path(v, OpRead)
			c.unvetted("--files-from "+v.s, why)
		}
	case "cpio":
		if hasAnyOption(c.args, []string{"-o", "--create"}) {
			c.unvetted("-o", why)
		}
	case "7z", "7za", "7zz":
		for _, w := range c.args {
			if strings.HasPrefix(w.s, "@") && len(w.s) > 1 && !w.dynamic {
				c.path(word{s: w.s[1:]}, OpRead)
				c.unvetted(w.s, why)
			}
		}
	}
}

// families applies the checks above that key on the command's name.
func families(c *call) {
	fileLists(c)
	tunnel(c)
	servesRoot(c)
	massTruncate(c)
	helperPrograms(c)
	programOptions(c)
}

// programOptionTable lists options whose value is a program or code the
// command runs, for commands no other classifier reads options of:
// rpm(8) --eval expands macros, and %(…) runs a shell; --pipe sends the
// output through a command; pip's --editor (pip config edit) names the
// editor pip starts.
var programOptionTable = map[string][]string{
	"rpm":  {"-E", "--eval", "--pipe"},
	"pip":  {"--editor"},
	"pip3": {"--editor"},
}

// programOptions judges the options of programOptionTable.
func programOptions(c *call) {
	names := programOptionTable[c.base]
	if names == nil {
		return
	}
	flags, _ := opts(c.args, strings.Join(names, " "), false)
	if f, ok := hasPrefixFlag(flags, names...); ok {
		c.concern(EffectExecutes, SeverityHigh, false, c.base+" "+f+" runs a program or code it is given")
	}
}
