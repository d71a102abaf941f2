package safety

import "strings"

// readOnly lists inspection commands: severity none unless a flag says
// otherwise (sort -o, rg --pre, awk system(), …). The value says how
// their operands map to files: "files" (every operand is read), "pattern"
// (first operand is a pattern, the rest are read), "" (no file operands)
// and the flags that take a value, after a space.
var readOnly = map[string]string{
	"ls": "files -I --ignore -w --width --hide --format --sort --time-style --color", "dir": "files", "vdir": "files",
	"cat": "files", "tac": "files", "nl": "files -b -n -s -v -w -i", "head": "files -n -c --lines --bytes", "tail": "files -n -c --lines --bytes -s --pid",
	"less": "files -p -x -b -h -j -y -z", "more": "files -n", "wc": "files", "file": "files -m -F", "stat": "files -c --format --printf",
	"grep":  "pattern -e -f -m -A -B -C -d -D --include --exclude --exclude-dir --color --label --max-count --context",
	"egrep": "pattern -e -f -m -A -B -C", "fgrep": "pattern -e -f -m -A -B -C", "zgrep": "pattern -e -f -m -A -B -C",
	"rg": "pattern -e -f -g --glob -t --type -T --type-not -m -A -B -C -M -j --max-count --context --iglob --sort --color --colors --max-depth --max-filesize --encoding -E",
	"ag": "pattern -G --ignore -A -B -C -m", "ack": "pattern -A -B -C -m --type",
	"diff": "files -I -x -X --exclude -U -C --label", "cmp": "files -i -n", "comm": "files", "md5sum": "files", "sha1sum": "files",
	"sha256sum": "files", "sha512sum": "files", "cksum": "files", "b2sum": "files", "strings": "files -n -t", "od": "files -A -t -N -j",
	"hexdump": "files -n -s -e -f", "cut": "files -d -f -c -b", "uniq": "files -f -s -w", "fold": "files -w", "fmt": "files -w",
	"paste": "files -d", "join": "files -t -1 -2 -o", "expand": "files -t", "unexpand": "files -t", "rev": "files", "column": "files -t -s -c",
	"tr": "", "echo": "", "printf": "", "pwd": "", "which": "", "whereis": "", "type": "", "whoami": "", "id": "", "groups": "",
	"uname": "", "hostname": "", "date": "", "cal": "", "uptime": "", "free": "", "df": "files", "du": "files -d --max-depth --exclude -B",
	"tree": "files -L -I -P", "ps": "", "pgrep": "", "pidof": "", "lsof": "", "env": "", "printenv": "", "true": "", "false": "",
	"test": "", "[": "", ":": "", "basename": "", "dirname": "", "realpath": "files", "readlink": "files", "seq": "", "sleep": "",
	"yes": "", "jq": "pattern --arg --argjson --slurpfile --rawfile --indent -f --from-file", "yq": "pattern", "locate": "", "man": "", "help": "",
	"history": "", "jobs": "", "wait": "", "shift": "", "getopts": "", "read": "", "unset": "", "set": "", "shopt": "",
	"return": "", "exit": "", "break": "", "continue": "", "let": "", "local": "", "declare": "", "typeset": "", "readonly": "",
	"export": "", "ulimit": "", "umask": "", "times": "", "dirs": "", "popd": "", "disown": "", "bg": "", "fg": "", "hash": "",
	"tput": "", "clear": "", "nproc": "", "arch": "", "lscpu": "", "lsblk": "", "sw_vers": "", "tty": "", "logname": "", "users": "",
	"who": "", "w": "", "last": "", "netstat": "", "ss": "", "ip": "", "ifconfig": "", "top": "", "htop": "", "vmstat": "", "iostat": "",
	"sort": "files -o --output -k -t -S -T --key --field-separator --buffer-size --temporary-directory --parallel", "xxd": "files -c -g -l -s",
	"base64": "files -w", "zcat": "files", "bzcat": "files", "xzcat": "files", "look": "", "apropos": "", "whatis": "", "info": "",
	"numfmt": "", "expr": "", "bc": "", "dc": "", "factor": "", "shuf": "files -n", "split": "", "csplit": "", "tsort": "files", "ptx": "files",
	"awk": " -v -F -f", "gawk": " -v -F -f -e", "mawk": " -v -F -f", "nawk": " -v -F -f", "cd": "", "pushd": "", "mapfile": "", "readarray": "", "unalias": "",
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
	case critical(c):
	case network(c):
	case packages(c):
	case interpreter(c):
	case system(c):
	default:
		c.concern(SeverityMedium, false, c.base+" is not a known read-only command")
	}
}

func readOnlyCmd(c *call, spec string) {
	kind, valued, _ := strings.Cut(spec, " ")
	flags, ops := opts(c.args, valued, false)
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
			c.concern(SeverityMedium, false, "sort "+f+" writes a file")
		}
		if f, ok := hasPrefixFlag(flags, "--compress-program"); ok {
			c.concern(SeverityHigh, true, "sort "+f+" runs another program")
		}
	case "rg":
		if f, ok := hasPrefixFlag(flags, "--pre", "--hostname-bin"); ok {
			c.concern(SeverityHigh, true, "rg "+f+" runs another program")
		}
	case "less", "more", "man":
		c.concern(SeverityNone, false, c.base+" is interactive")
		for _, w := range c.args {
			if strings.HasPrefix(w.s, "+") || c.base == "man" && (w.s == "-P" || w.s == "-H" || strings.HasPrefix(w.s, "--pager") || strings.HasPrefix(w.s, "--html") || strings.HasPrefix(w.s, "-P")) {
				c.concern(SeverityHigh, true, c.base+" "+w.s+" can run shell commands")
				break
			}
		}
	case "xxd":
		if has(flags, "r", "--revert") {
			if len(ops) > 1 {
				c.path(ops[1], OpWrite)
				c.concern(SeverityMedium, false, "xxd -r writes a file")
			}
		}
	case "awk", "gawk", "mawk", "nawk":
		awk(c, ops)
		return
	case "cd", "pushd":
		c.a.chdir(ops)
		if len(ops) > 0 {
			c.path(ops[0], OpChdir)
		}
		return
	case "alias":
		for _, w := range ops {
			if _, v, ok := strings.Cut(w.s, "="); ok {
				c.concern(SeverityMedium, true, "defines an alias, which can shadow any command")
				c.a.res.Commands[c.idx].Wrapper = Opaque
				c.a.analyzeScript(v, c.idx, c.a.depth+1)
			}
		}
		return
	case "hash":
		if has(flags, "p") {
			c.concern(SeverityHigh, true, "hash -p changes which program a name runs")
		}
		return
	case "enable":
		if has(flags, "f") {
			c.concern(SeverityHigh, true, "enable -f loads a builtin from a shared library")
		}
		return
	case "set", "shopt":
		return
	case "kill", "killall", "pkill":
		kill(c, flags, ops)
		return
	case "crontab":
		if !has(flags, "l") || has(flags, "er") || len(ops) > 0 {
			c.concern(SeverityHigh, false, "crontab installs scheduled commands (persistence)")
		}
		return
	case "mktemp", "tempfile":
		c.concern(SeverityNone, false, c.base+" creates a temporary file")
		return
	case "env":
		return
	case "ip", "ifconfig":
		if len(ops) > 1 && (ops[1].s == "add" || ops[1].s == "del" || ops[1].s == "set" || ops[1].s == "flush") || c.base == "ifconfig" && len(ops) > 1 {
			c.concern(SeverityHigh, false, c.base+" changes network configuration")
		}
		return
	}
	switch kind {
	case "files":
		for _, w := range ops {
			c.path(w, OpRead)
		}
	case "pattern":
		if _, ok := hasPrefixFlag(flags, "-e", "--regexp", "-f", "--file"); !ok && len(ops) > 0 {
			ops = ops[1:]
		}
		for _, w := range ops {
			c.path(w, OpRead)
		}
	}
}

func awk(c *call, ops []word) {
	prog := word{}
	if len(ops) > 0 {
		prog, ops = ops[0], ops[1:]
	}
	for i, w := range c.args {
		if w.s == "-f" && i+1 < len(c.args) {
			c.path(c.args[i+1], OpRead)
			c.concern(SeverityMedium, false, "awk runs a program file")
			return
		}
	}
	switch {
	case prog.dynamic:
		c.unanalyzable("awk program known only at run time")
	case strings.Contains(prog.s, "system") || strings.Contains(prog.s, "|") || strings.Contains(prog.s, ">") || strings.Contains(prog.s, "getline"):
		c.concern(SeverityHigh, true, "awk program can run commands or write files")
	}
	for _, w := range ops {
		if !strings.Contains(w.s, "=") {
			c.path(w, OpRead)
		}
	}
}

func kill(c *call, flags []string, ops []word) {
	for _, w := range append(append([]word(nil), ops...), argsAfter(c.args, "--")...) {
		if w.s == "-1" {
			c.concern(SeverityCritical, true, c.base+" -1 signals every process")
			return
		}
	}
	for _, f := range flags {
		if f == "-1" {
			c.concern(SeverityCritical, true, c.base+" -1 signals every process")
			return
		}
	}
	if c.base == "kill" && len(ops) == 0 && (has(flags, "l", "--list") || has(flags, "L", "--table")) {
		return
	}
	c.concern(SeverityHigh, false, c.base+" terminates processes")
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
func isFetcherOrDecoder(cmd Command) bool {
	b := commandBase(cmd.Name)
	switch b {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lynx", "links", "nc", "ncat", "netcat", "socat", "ftp", "tftp", "uudecode", "gpg":
		return true
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
