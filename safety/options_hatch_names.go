package safety

// hatchOptionNames lists, for tools whose parsers take a unique prefix of
// a long option but whose full option lists the analyser does not keep,
// the long options that run a program, load code, read a list of files
// or write a file ("hatches"), and the other options whose names are a
// prefix of a hatch (so that they keep their own meaning: pip's --pre is
// not --prefix). canonicalArgs spells an abbreviation of a hatch in full,
// so it is judged as the hatch is; an abbreviation several options share
// is judged as every hatch it could be, the worst reading, even where the
// tool would refuse it as ambiguous.
//
// Sources, by parser: GNU getopt_long(3) ("long option names may be
// abbreviated if the abbreviation is unique"): make (GNU make manual,
// "Options Summary"), sed (GNU sed manual, "Command-Line Options"), gawk
// (gawk manual, "Command-Line Options"), xargs (findutils manual,
// "Invoking xargs"), env (coreutils manual, "env invocation"); nopt,
// which expands unique abbreviations of every npm config key (npm docs,
// "config"); Python's optparse, which pip uses ("long options can be
// abbreviated"); git's parse-options (gitcli(7)), for the read-only
// sub-commands whose diff options run helpers or write files
// (git-diff(1) --ext-diff, --textconv, --output); man-db's argp (man(1)
// --html and --pager name programs); rsync's popt (rsync(1)
// -e/--rsh, --rsync-path), where an unknown prefix is judged as the
// program option it could be.
//
// Tools left out take no abbreviations, checked against the tools
// themselves: docker and kubectl parse with spf13/pflag ("unknown flag:
// --privi"), find's primaries are whole words ("unknown predicate
// `-maxdep'"), and ssh has no long options. timeout, nice and stdbuf do
// abbreviate (getopt_long), but none of their options runs a program:
// the command they run is their operand, judged as a command.
var hatchOptionNames = map[string][]string{
	"make":  {"directory", "eval", "file", "include-dir", "makefile"},
	"sed":   {"expression", "file", "in-place"},
	"gawk":  {"dump-variables", "exec", "file", "include", "load", "pretty-print", "profile", "source"},
	"xargs": {"arg-file", "process-slot-var"},
	"env":   {"chdir", "split-string"},
	"npm": {"browser", "ca", "call", "editor", "global", "git", "globalconfig", "node-options", "prefix", "script-shell", "shell",
		"userconfig"},
	"pip": {"cache-dir", "config-settings", "constraint", "dest", "editor", "global-option", "log", "pre",
		"prefix", "requirement", "root", "src", "target"},
	"rsync":    {"rsh", "rsync-path"},
	"man":      {"html", "pager"},
	"rpm":      {"eval", "pipe"},
	"git log":  {"ext-diff", "output", "text", "textconv"},
	"git diff": {"ext-diff", "output", "text", "textconv"},
	"git show": {"ext-diff", "output", "text", "textconv"},
}

// hatchKey returns the key of c's command in hatchOptionNames and the
// index in c.args where its own options start, or "" when it has none.
func hatchKey(c *call) (string, int) {
	b := c.base
	switch b {
	case "pip3":
		b = "pip"
	case "awk", "gawk":
		b = "gawk" // awk is often gawk; mawk has no long options to abbreviate
	}
	if _, ok := hatchOptionNames[b]; ok {
		return b, 0
	}
	return "", 0
}
