package safety

import "strings"

// readOnly lists inspection commands: severity none unless a flag says
// otherwise (sort -o, rg --pre, awk system(), …). The value says how
// their operands map to files: "files" (every operand is read), "pattern"
// (first operand is a pattern, the rest are read), "" (no file operands),
// then, for the few commands without an option model (options*.go), the
// flags that take a value, after a space.
var readOnly = map[string]string{
	"ls": "files", "dir": "files", "vdir": "files",
	"cat": "files", "tac": "files", "nl": "files", "head": "files", "tail": "files",
	"less": "files", "more": "files", "wc": "files", "file": "files", "stat": "files",
	"grep":  "pattern",
	"egrep": "pattern", "fgrep": "pattern", "zgrep": "pattern",
	"rg": "pattern",
	"ag": "pattern -G --ignore -A -B -C -m", "ack": "pattern -A -B -C -m --type",
	"diff": "files", "cmp": "files", "comm": "files", "md5sum": "files", "sha1sum": "files",
	"sha256sum": "files", "sha512sum": "files", "cksum": "files", "b2sum": "files", "strings": "files", "od": "files",
	"hexdump": "files", "cut": "files", "uniq": "files", "fold": "files", "fmt": "files",
	"paste": "files", "join": "files", "expand": "files", "unexpand": "files", "rev": "files", "column": "files",
	"tr": "", "echo": "", "printf": "", "pwd": "", "which": "", "whereis": "", "type": "", "whoami": "", "id": "", "groups": "",
	"uname": "", "hostname": "", "date": "", "cal": "", "uptime": "", "free": "", "df": "files", "du": "files",
	"tree": "files", "ps": "", "pgrep": "", "pidof": "", "lsof": "", "env": "", "printenv": "", "true": "", "false": "",
	"test": "", "[": "", ":": "", "basename": "", "dirname": "", "realpath": "files", "readlink": "files", "seq": "", "sleep": "",
	"yes": "", "jq": "pattern", "yq": "pattern", "locate": "", "man": "", "help": "",
	"history": "files", "jobs": "", "wait": "", "shift": "", "getopts": "", "read": "", "unset": "", "set": "", "shopt": "",
	"return": "", "exit": "", "break": "", "continue": "", "let": "", "local": "", "declare": "", "typeset": "", "readonly": "",
	"export": "", "ulimit": "", "umask": "", "times": "", "dirs": "", "popd": "", "disown": "", "bg": "", "fg": "", "hash": "",
	"tput": "", "clear": "", "nproc": "", "arch": "", "lscpu": "", "lsblk": "", "sw_vers": "", "tty": "", "logname": "", "users": "",
	"who": "", "w": "", "last": "", "netstat": "", "ss": "", "ip": "", "ifconfig": "", "top": "", "htop": "", "vmstat": "", "iostat": "",
	"sort": "files", "xxd": "files",
	"base64": "files", "zcat": "files", "bzcat": "files", "xzcat": "files", "look": "pattern", "apropos": "", "whatis": "", "info": " -o --output",
	"numfmt": "", "expr": "", "bc": "files", "dc": "files -e --expression -f --file", "factor": "", "shuf": "files", "tsort": "files", "ptx": "files",
	"awk": "", "gawk": "", "mawk": "", "nawk": "", "cd": "", "pushd": "", "mapfile": "", "readarray": "", "unalias": "",
}

// shellState lists builtins and small tools whose tier depends on their
// arguments (readOnlyCmd judges them case by case).
var shellState = map[string]bool{
	"alias": true, "enable": true, "hash": true, "kill": true, "killall": true, "pkill": true,
	"crontab": true, "mktemp": true, "tempfile": true,
}

func tools(c *call) {
	if spec, ok := readOnly[c.base]; ok || shellState[c.base] {
		readOnlyCmd(c, spec)
		return
	}
	switch {
	case infra(c):
	case critical(c):
	case network(c):
	case packages(c):
	case interpreter(c):
	case system(c):
	default:
		c.concern(EffectUnknown, SeverityMedium, false, c.base+" is not a known read-only command")
		unknownOperands(c)
	}
}

// unknownOperands records the operands of a command whose arguments are
// not modelled as possible reads and writes: `bat .env`, `split .env` or
// `glow .env` under an allow rule for that tool must not show a secret
// unasked, and `ssh-keygen -f .git/hooks/x` or `split x .git/hooks/pre-`
// must not write where code runs later. Over-recording is cheap: a word
// that names no file passes the workspace check. Values of --name=VALUE
// options count too.
func unknownOperands(c *call) {
	for _, w := range c.args {
		s := w.s
		if w.dynamic || w.pipe || s == "" || s == "-" {
			continue
		}
		if strings.HasPrefix(s, "-") {
			_, v, ok := strings.Cut(s, "=")
			if !ok || !strings.HasPrefix(s, "--") {
				continue
			}
			s = v
		}
		if s == "" || strings.Contains(s, "://") || strings.ContainsAny(s, "=\n") && !strings.Contains(s, "/") {
			continue // URLs, NAME=value, odd words
		}
		c.path(word{s: s, glob: w.glob}, OpRead)
		if cleanPath(s) != "." {
			// A tool given "." (ruff check ., black .) works on the
			// files under it; it cannot replace the workspace root,
			// which is what a write of "." would mean.
			c.path(word{s: s, glob: w.glob}, OpWrite)
		}
	}
}

// readFlags lists, per inspection command, the options whose value is a
// file the command reads: `grep -f .env x` prints nothing of x but
// reports .env's lines as patterns, `wc --files0-from=.env` echoes its
// content in error messages.
var readFlags = map[string][]string{
	"grep": {"-f", "--file", "--exclude-from"}, "egrep": {"-f", "--file"}, "fgrep": {"-f", "--file"}, "zgrep": {"-f", "--file"},
	"rg": {"-f", "--file", "--ignore-file"}, "diff": {"-X", "--exclude-from"}, "du": {"-X", "--exclude-from", "--files0-from"},
	"wc": {"--files0-from"}, "sort": {"--files0-from"}, "hexdump": {"-f"}, "jq": {"-f", "--from-file"},
}

func readOnlyCmd(c *call, spec string) {
	kind, valued, _ := strings.Cut(spec, " ")
	args := c.args
	if c.base == "jq" {
		args = jqArgs(c)
		if jqReadsEnvironment(args) {
			programReadsEnvironment(c, "$ENV")
		}
	}
	if names := readFlags[c.base]; names != nil {
		for _, v := range valuesOf(args, names...) {
			c.path(v, OpRead)
		}
	}
	var flags []string
	var ops []word
	if m, margs := optionModelFor(c.base, args); m != nil && len(margs) == len(args) {
		flags, ops = m.split(args)
	} else {
		flags, ops = opts(args, valued, false)
	}
	nameArgs(c)
	switch c.base {
	case "sort":
		if f, ok := hasPrefixFlag(flags, "-o", "--output"); ok {
			for i, w := range c.args {
				if (w.s == "-o" || w.s == "--output") && i+1 < len(c.args) {
					c.path(c.args[i+1], OpWrite)
				} else if strings.HasPrefix(w.s, "--output=") {
					c.path(word{s: strings.TrimPrefix(w.s, "--output=")}, OpWrite)
				}
			}
			c.concern(EffectWrites, SeverityMedium, false, "sort "+f+" writes a file")
		}
	case "less", "more", "man":
		c.concern(EffectReads, SeverityNone, false, c.base+" is interactive")
		for _, w := range c.args {
			if strings.HasPrefix(w.s, "+") || c.base == "man" && (strings.HasPrefix(w.s, "-H") || strings.HasPrefix(w.s, "--pager") || strings.HasPrefix(w.s, "--html") || strings.HasPrefix(w.s, "-P")) {
				c.concern(EffectExecutes, SeverityHigh, true, c.base+" "+w.s+" can run shell commands")
				break
			}
		}
	case "xxd", "uniq", "ptx":
		// The second operand is the output file, with or without xxd -r.
		if len(ops) > 1 {
			c.path(ops[0], OpRead)
			c.path(ops[1], OpWrite)
			c.concern(EffectWrites, SeverityMedium, false, c.base+" writes its output to "+ops[1].s)
			return
		}
	case "info":
		outputOptions(c)
	case "history":
		// history -w/-a FILE writes the history, -r/-n FILE reads it.
		if has(flags, "wa") {
			for _, w := range ops {
				c.path(w, OpWrite)
			}
			c.concern(EffectWrites, SeverityMedium, false, "history writes a file")
			return
		}
	case "dc":
		// dc's ! command runs the rest of the line as a shell command, so
		// only literal -e programs without ! are inspection.
		exprs := valuesOf(c.args, "-e", "--expression")
		safe := len(exprs) > 0 && len(ops) == 0 && len(valuesOf(c.args, "-f", "--file")) == 0
		for _, v := range exprs {
			safe = safe && !v.dynamic && !strings.Contains(v.s, "!")
		}
		if !safe {
			c.concern(EffectExecutes, SeverityHigh, true, "dc runs a program from a file, its input or an expression, and its ! command runs shell commands")
		}
		return
	case "yq":
		if _, ok := hasPrefixFlag(flags, "-i", "--inplace"); ok {
			c.concern(EffectWrites, SeverityMedium, false, "yq -i edits files in place")
			if len(ops) > 1 {
				for _, w := range ops[1:] {
					c.path(w, OpWrite)
				}
			}
			return
		}
	case "awk", "gawk", "mawk", "nawk":
		awk(c)
		return
	case "cd", "pushd":
		c.a.chdir(ops)
		if len(ops) > 0 {
			c.path(ops[0], OpChdir)
		}
		return
	case "alias":
		for _, w := range ops {
			if name, v, ok := strings.Cut(w.s, "="); ok {
				c.concern(EffectHidden, SeverityMedium, true, "defines an alias, which can shadow any command")
				if knownCommand(name) {
					c.concern(EffectHidden, SeverityHigh, true, "alias "+name+" redefines the command "+name)
				}
				c.a.res.Commands[c.idx].Wrapper = Opaque
				c.a.analyzeScript(v, c.idx, c.a.depth+1)
			}
		}
		return
	case "hash":
		if has(flags, "p") {
			c.concern(EffectHidden, SeverityHigh, true, "hash -p changes which program a name runs")
		}
		return
	case "enable":
		if has(flags, "f") {
			c.concern(EffectExecutes, SeverityHigh, true, "enable -f loads a builtin from a shared library")
		}
		return
	case "set", "declare", "typeset", "export", "readonly":
		if dumpsVariables(c.base, len(c.args), flags, len(ops)) {
			printsEnvironment(c)
		}
		return
	case "shopt":
		return
	case "kill", "killall", "pkill":
		kill(c, flags, ops)
		return
	case "crontab":
		if !has(flags, "l") || has(flags, "er") || len(ops) > 0 {
			c.concern(EffectSystem, SeverityHigh, false, "crontab installs scheduled commands (persistence)")
		}
		return
	case "mktemp", "tempfile":
		c.concern(EffectInert, SeverityNone, false, c.base+" creates a temporary file")
		return
	case "printenv":
		printsEnvironment(c)
		return
	case "ps":
		// BSD-style e (ps auxe, ps eww) adds every process's environment.
		for _, w := range c.args {
			if !strings.HasPrefix(w.s, "-") && isLetters(w.s) && strings.Contains(w.s, "e") || strings.Contains(w.s, "environ") {
				printsEnvironment(c)
				break
			}
		}
		return
	case "umask":
		if len(ops) > 0 {
			c.concern(EffectWrites, SeverityMedium, false, "umask changes the permissions of every file the session creates later")
		}
		return
	case "ip", "ifconfig":
		if len(ops) > 1 && (ops[1].s == "add" || ops[1].s == "del" || ops[1].s == "set" || ops[1].s == "flush") || c.base == "ifconfig" && len(ops) > 1 {
			c.concern(EffectSystem, SeverityHigh, false, c.base+" changes network configuration")
		}
		return
	}
	switch kind {
	case "files":
		for _, w := range ops {
			c.path(w, OpRead)
		}
	case "pattern":
		// rg --files and --type-list take no pattern: every operand is a path.
		if _, ok := hasPrefixFlag(flags, "-e", "--regexp", "-f", "--file"); !ok && len(ops) > 0 && !(c.base == "rg" && has(flags, "", "--files")) {
			ops = ops[1:]
		}
		for _, w := range ops {
			c.path(w, OpRead)
		}
	}
}

func kill(c *call, flags []string, ops []word) {
	for _, w := range append(append([]word(nil), ops...), argsAfter(c.args, "--")...) {
		if w.s == "-1" {
			c.concern(EffectSystem, SeverityCritical, true, c.base+" -1 signals every process")
			return
		}
	}
	for _, f := range flags {
		if f == "-1" {
			c.concern(EffectSystem, SeverityCritical, true, c.base+" -1 signals every process")
			return
		}
	}
	if c.base == "kill" && len(ops) == 0 && (has(flags, "l", "--list") || has(flags, "L", "--table")) {
		return
	}
	c.concern(EffectSystem, SeverityHigh, false, c.base+" terminates processes")
}

func argsAfter(ws []word, sep string) []word {
	for i, w := range ws {
		if w.s == sep {
			return ws[i+1:]
		}
	}
	return nil
}

// isFetcherOrDecoder reports commands whose output is downloaded or
// decoded content: piping it into a shell runs code nobody has read.
// Text transformers count as decoders: `echo 'ez ~ sa-' | rev | sh` and
// `tr a-z n-za-m <<< … | sh` show one text and run another.
func isFetcherOrDecoder(cmd Command) bool {
	b := commandBase(cmd.Name)
	switch b {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lynx", "links", "nc", "ncat", "netcat", "socat", "ftp", "tftp", "uudecode", "gpg",
		"rev", "tr", "iconv", "sed", "gsed", "awk", "gawk", "mawk", "nawk", "zcat", "gunzip", "bzcat", "bunzip2", "xzcat", "unxz", "zstdcat", "unzstd", "lz4cat":
		return true
	case "gzip", "bzip2", "xz", "zstd", "lz4", "brotli":
		for _, a := range cmd.Args {
			if a == "--decompress" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "d") {
				return true
			}
		}
	case "base64", "base32", "basenc", "xxd", "openssl", "certutil":
		for _, a := range cmd.Args {
			if a == "-d" || a == "--decode" || a == "-D" || a == "-r" || a == "-decode" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "dD") && b != "openssl" {
				return true
			}
			if b == "openssl" && (a == "enc" || a == "base64") {
				return true
			}
		}
	}
	return false
}

// outputOptions records the file info -o writes.
func outputOptions(c *call) {
	for _, v := range valuesOf(c.args, "-o", "--output") {
		c.path(v, OpWrite)
		c.concern(EffectWrites, SeverityMedium, false, c.base+" writes a file ("+v.s+")")
	}
}

// knownCommand reports a name the analyser knows as a command, which an
// alias of that name would redefine.
func knownCommand(name string) bool {
	if _, ok := readOnly[name]; ok || shellState[name] {
		return true
	}
	switch name {
	case "rm", "cp", "mv", "git", "sudo", "ssh", "scp", "curl", "wget", "npm", "npx", "go", "make", "python", "python3",
		"node", "pip", "cargo", "docker", "kubectl", "bash", "sh", "chmod", "chown", "ln", "tar", "find", "sed", "vim":
		return true
	}
	return false
}
