package safety

import (
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// This file classifies commands that delete, write or change files.

func remove(c *call) {
	flags, targets := opts(c.args, "", false)
	if c.base == "shred" || c.base == "wipe" || c.base == "srm" {
		c.concern(EffectDeletes, SeverityCritical, true, c.base+" destroys file contents beyond recovery")
	}
	recursive := has(flags, "rR", "--recursive")
	force := has(flags, "f", "--force")
	if has(flags, "", "--no-preserve-root") {
		c.concern(EffectDeletes, SeverityCritical, true, "disables rm's protection of /")
	}
	if len(targets) == 0 {
		c.concern(EffectDeletes, SeverityMedium, false, "deletes files")
	}
	for _, t := range targets {
		c.path(t, OpWrite)
		switch {
		case t.dynamic:
			c.unanalyzable("deletes " + t.s + ", known only at run time")
		case recursive || force:
			if what, ok := criticalDelete(c.a.resolve(t.s)); ok {
				c.concern(EffectDeletes, SeverityCritical, true, "recursive or forced delete of "+what+" ("+t.s+")")
			} else {
				c.concern(EffectDeletes, SeverityHigh, false, "recursive or forced delete of "+t.s)
			}
		default:
			if what, ok := criticalDelete(c.a.resolve(t.s)); ok && (systemPath(c.a.resolve(t.s)) || cleanPath(c.a.resolve(t.s)) == "~") {
				c.concern(EffectDeletes, SeverityCritical, true, "deletes "+what+" ("+t.s+")")
			} else {
				c.concern(EffectDeletes, SeverityMedium, false, "deletes "+t.s)
			}
		}
	}
}

var worldWritable = lazyregexp.New(`^(0?[0-7]?[0-7][0-7][2367]|[ugoa]*[+=][rwxXst]*w[rwxXst]*|[0-7]*[4-7][0-7]{3}|[ugoa]*[+=][rwxX]*s[rwxXst]*)$`)

// minusMode is a symbolic chmod mode that starts with a minus (-x,
// -rw): chmod takes it for the mode, not for an option.
var minusMode = lazyregexp.New(`^-[rwxXst]+$`)

func permissions(c *call) {
	args := c.args
	var mode []word
	if c.base == "chmod" {
		for i, w := range args {
			if w.s == "--" {
				break
			}
			if !w.dynamic && minusMode.MatchString(w.s) {
				mode = []word{w}
				args = append(append([]word{}, args[:i]...), args[i+1:]...)
				break
			}
		}
	}
	flags, ops := opts(args, "--reference", false)
	ops = append(mode, ops...)
	recursive := has(flags, "R", "--recursive")
	if len(ops) == 0 {
		c.concern(EffectWrites, SeverityMedium, false, c.base+" changes file metadata")
		return
	}
	spec, targets := ops[0], ops[1:]
	switch c.base {
	case "chmod":
		if !spec.dynamic && (worldWritable.MatchString(spec.s) || spec.s == "777" || spec.s == "a+rwx") {
			c.concern(EffectLoosensPermissions, SeverityHigh, false, "chmod "+spec.s+" makes files writable by everyone or setuid")
		}
	case "chown", "chgrp":
		owner, _, _ := strings.Cut(spec.s, ":")
		if owner == "root" || owner == "0" || strings.HasSuffix(spec.s, ":root") || c.base == "chgrp" && spec.s == "root" {
			c.concern(EffectLoosensPermissions, SeverityHigh, false, c.base+" gives files to root")
		}
	}
	c.concern(EffectWrites, SeverityMedium, false, c.base+" changes file metadata")
	for _, t := range targets {
		c.path(t, OpWrite)
		if recursive && !t.dynamic {
			if what, ok := criticalDelete(c.a.resolve(t.s)); ok {
				c.concern(EffectWrites, SeverityCritical, true, "recursive "+c.base+" of "+what+" ("+t.s+")")
			}
		}
		if t.dynamic && recursive {
			c.unanalyzable("recursive " + c.base + " of " + t.s + ", known only at run time")
		}
	}
}

// copyValued lists, per command, the options that take the next word as
// their value. The same letter means different things: -f is cp's and
// ln's --force but rsync's --filter, -t is cp's --target-directory but
// rsync's --times, and -T is cp's --no-target-directory. Read as valued,
// `cp -f ~/.ssh/id_rsa key.txt` or `mv -f .env x` hid the path they name.
var copyValued = map[string]string{
	"cp":      "-t --target-directory -S --suffix",
	"mv":      "-t --target-directory -S --suffix",
	"ln":      "-t --target-directory -S --suffix",
	"link":    "",
	"install": "-t --target-directory -S --suffix -m --mode -o --owner -g --group",
	"rsync": "-e --rsh --rsync-path --exclude --include --filter -f -T --temp-dir --exclude-from --include-from " +
		"--files-from --partial-dir --backup-dir --chmod --log-file --password-file",
	"scp":  "-c -F -i -J -l -o -P -S",
	"sftp": "-c -F -i -J -l -o -P -S",
}

func copyMove(c *call) {
	switch c.base {
	case "scp", "sftp":
		c.concern(EffectNetwork, SeverityHigh, false, c.base+" copies files to or from another host")
	case "rsync":
		for _, w := range c.args {
			if remoteSpec(w.s) {
				c.concern(EffectNetwork, SeverityHigh, false, "rsync copies files to or from another host ("+w.s+")")
				break
			}
		}
		if f, ok := hasPrefixFlag(words(c.args), "-e", "--rsh", "--rsync-path"); ok {
			c.concern(EffectExecutes, SeverityHigh, true, "rsync runs a remote shell command ("+f+")")
		}
	}
	flags, ops := opts(c.args, copyValued[c.base], false)
	dest := -1
	if _, ok := hasPrefixFlag(flags, "-t", "--target-directory"); ok && c.base != "rsync" {
		for i, w := range c.args {
			if (w.s == "-t" || w.s == "--target-directory") && i+1 < len(c.args) {
				c.path(c.args[i+1], OpWrite)
			}
		}
	} else if len(ops) > 0 {
		dest = len(ops) - 1
	}
	if c.base == "install" && has(flags, "d", "--directory") {
		dest = -2 // every operand is a directory to create
	}
	for i, w := range ops {
		switch {
		case dest == -2 || i == dest || c.base == "mv":
			if !remoteSpec(w.s) {
				c.path(w, OpWrite)
			}
		default:
			if !remoteSpec(w.s) {
				c.path(w, OpRead)
			}
		}
	}
	if c.base == "ln" {
		// ln's -f is --force, not rsync's --filter: parse its own options.
		if has(flags, "s", "--symbolic") && len(ops) > 0 {
			c.a.symlinked(ops)
		}
	}
	if c.base == "rsync" && len(ops) > 1 {
		if f, ok := hasPrefixFlag(flags, "--delete", "--del", "--delete-before", "--delete-during", "--delete-after", "--delete-delay", "--delete-excluded"); ok {
			dest := ops[len(ops)-1]
			if what, crit := wholeTree(c.a.resolve(dest.s)); crit && !dest.dynamic {
				c.concern(EffectDeletes, SeverityCritical, true, "rsync "+f+" deletes whatever "+what+" ("+dest.s+") holds that the source lacks")
			} else {
				c.concern(EffectDeletes, SeverityHigh, false, "rsync "+f+" deletes files in "+dest.s)
			}
		}
	}
	if c.base == "mv" {
		for _, w := range ops[:max(len(ops)-1, 0)] {
			if what, ok := criticalDelete(w.s); ok && !w.dynamic {
				c.concern(EffectDeletes, SeverityCritical, true, "moves away "+what+" ("+w.s+")")
			}
		}
	}
	c.concern(EffectWrites, SeverityMedium, false, c.base+" writes files")
}

// tarOldStyleExtract reports `tar xf a.tar`: the first word is a cluster
// of letters without a dash.
func tarOldStyleExtract(args []word) bool {
	return len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && strings.Contains(args[0].s, "x") && isLetters(args[0].s)
}

// remoteSpec reports host:path or user@host:path arguments.
func remoteSpec(s string) bool {
	host, _, ok := strings.Cut(s, ":")
	return ok && host != "" && !strings.ContainsAny(host, "/") && !strings.HasPrefix(s, "-")
}

// writeValued lists, per command, the options that take the next word
// as their value. They differ: -p is a flag of mkdir and tee but takes
// the strip count in patch, so one shared list would let `mkdir -p
// ~/.config/x` hide the directory it creates.
var writeValued = map[string]string{
	"tee":      "",
	"touch":    "-d --date -r --reference -t",
	"mkdir":    "-m --mode --context",
	"truncate": "-s --size -r --reference",
	"mkfifo":   "-m --mode --context",
	"mknod":    "-m --mode --context",
	"patch":    "-p -i --input -o --output -d --directory -r --reject-file -D --ifdef -F --fuzz -B --prefix -Y --basename-prefix -z --suffix -V --version-control -g --get",
}

// archiveValued is the same for the archivers, whose options overlap.
const archiveValued = "-C --directory -d -r -t -m --mode -p -i --input -o --output -s --size -f --file -x"

func writeFiles(c *call) {
	valued, ok := writeValued[c.base]
	if !ok {
		valued = archiveValued
	}
	flags, ops := opts(c.args, valued, false)
	switch c.base {
	case "tar", "unzip", "gunzip", "gzip", "zip", "bzip2", "xz", "unxz", "7z":
		if f, ok := hasPrefixFlag(flags, "--to-command", "--checkpoint-action", "--use-compress-program", "-I", "--info-script", "--new-volume-script", "-F", "-TT", "--unzip-command", "--rsh-command"); ok && (c.base == "tar" || c.base == "zip") {
			c.concern(EffectExecutes, SeverityHigh, true, c.base+" "+f+" runs another program")
		}
		if c.base == "tar" && !has(flags, "xcruA", "--extract", "--create", "--append", "--update", "--get") && len(flags) > 0 && strings.ContainsAny(flags[0], "t") {
			return // listing an archive
		}
		if c.base == "unzip" && has(flags, "l", "--list") {
			return
		}
		c.concern(EffectWrites, SeverityMedium, false, c.base+" creates or extracts files")
		for _, w := range ops {
			c.path(w, OpWrite)
		}
		if c.base == "tar" && has(flags, "P", "--absolute-names") || c.base == "unzip" && has(flags, ":") {
			c.concern(EffectWrites, SeverityHigh, true, c.base+" extracts members with absolute or parent paths, which can write anywhere")
		}
		if c.base == "unzip" || c.base == "tar" && (has(flags, "x", "--extract", "--get") || tarOldStyleExtract(c.args)) {
			// The directory extracted into is written: tar -xf x.tar -C /
			// replaces system files, unzip -d ~ start-up files.
			for _, d := range valuesOf(c.args, "-C", "--directory", "-d") {
				c.path(d, OpWrite)
			}
		}
		return
	case "patch":
		c.concern(EffectWrites, SeverityMedium, false, "patch modifies files")
		for _, w := range ops {
			c.path(w, OpWrite)
		}
		for _, w := range valuesOf(c.args, "-o", "--output", "-r", "--reject-file", "-d", "--directory") {
			c.path(w, OpWrite)
		}
		for _, w := range valuesOf(c.args, "-i", "--input") {
			c.path(w, OpRead)
		}
		return
	case "touch", "truncate":
		for _, w := range valuesOf(c.args, "-r", "--reference") {
			c.path(w, OpRead)
		}
	case "mknod":
		c.concern(EffectSystem, SeverityHigh, false, "mknod creates a device node")
	}
	c.concern(EffectWrites, SeverityMedium, false, c.base+" writes files")
	for _, w := range ops {
		c.path(w, OpWrite)
	}
}

func dd(c *call) {
	for _, w := range c.args {
		switch {
		case strings.HasPrefix(w.s, "if="):
			c.concern(EffectWrites, SeverityCritical, true, "dd copies raw data ("+w.s+")")
			c.a.path(c.idx, strings.TrimPrefix(w.s, "if="), OpRead, false)
		case strings.HasPrefix(w.s, "of="):
			c.path(word{s: strings.TrimPrefix(w.s, "of="), dynamic: w.dynamic}, OpWrite)
			c.concern(EffectWrites, SeverityMedium, false, "dd writes "+strings.TrimPrefix(w.s, "of="))
		}
	}
	if c.a.res.Commands[c.idx].Severity < SeverityMedium {
		c.concern(EffectWrites, SeverityMedium, false, "dd copies raw data")
	}
}

func find(c *call) {
	if c.base == "fd" || c.base == "fdfind" {
		for i, w := range c.args {
			if w.s == "-x" || w.s == "--exec" || w.s == "-X" || w.s == "--exec-batch" {
				c.concern(EffectExecutes, SeverityHigh, true, "fd "+w.s+" runs a command for each match")
				c.wrap(Opaque, c.args[i+1:])
				return
			}
		}
		return
	}
	// The starting points are listed: `find ~ -name '*.pem'` shows what
	// lies outside the workspace as `ls ~` would.
	for _, w := range findStarts(c.args) {
		c.path(w, OpRead)
	}
	for i := 0; i < len(c.args); i++ {
		w := c.args[i]
		switch w.s {
		case "-exec", "-execdir", "-ok", "-okdir":
			c.concern(EffectExecutes, SeverityHigh, true, "find "+w.s+" runs a command for each match")
			if i+1 < len(c.args) {
				switch commandBase(c.args[i+1].s) {
				case "rm", "shred", "unlink", "rimraf", "truncate":
					findWholeTree(c, w.s+" "+c.args[i+1].s)
				}
			}
			j := i + 1
			for j < len(c.args) && c.args[j].s != ";" && c.args[j].s != "+" {
				j++
			}
			c.wrap(Opaque, c.args[i+1:j]) // {} stands for each match
			i = j
		case "-delete":
			c.concern(EffectDeletes, SeverityHigh, true, "find -delete removes every match")
			findWholeTree(c, "-delete")
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			c.concern(EffectWrites, SeverityHigh, true, "find "+w.s+" writes a file")
			if i+1 < len(c.args) {
				c.path(c.args[i+1], OpWrite)
			}
		}
	}
}

// findStarts returns find's starting points: the words before the first
// option or expression (find's own -H, -L and -P come first and are
// skipped).
func findStarts(args []word) []word {
	for len(args) > 0 && (args[0].s == "-H" || args[0].s == "-L" || args[0].s == "-P") {
		args = args[1:]
	}
	for i, w := range args {
		if strings.HasPrefix(w.s, "-") || w.s == "!" || w.s == "(" {
			return args[:i]
		}
	}
	return args
}

// wholeTree reports a directory whose wholesale deletion is critical: the
// root, a system or home directory, a parent of the workspace, or the
// workspace itself (".").
func wholeTree(p string) (string, bool) {
	if what, ok := criticalDelete(p); ok {
		return what, true
	}
	if c := cleanPath(p); c == "." {
		return "the whole workspace", true
	}
	return "", false
}

// findWholeTree raises a deleting find to critical when it starts at a
// whole tree and selects files by no name: `find . -delete`, `find ~
// -type f -exec rm {} +`. A name test (`find . -name '*.pyc' -delete`)
// keeps it high.
func findWholeTree(c *call, how string) {
	starts := findStarts(c.args)
	if len(starts) == 0 {
		starts = []word{{s: "."}}
	}
	named := false
	for _, w := range c.args {
		switch w.s {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-newer", "-mtime", "-mmin", "-size", "-empty", "-user":
			named = true
		}
	}
	for _, s := range starts {
		if s.dynamic {
			continue
		}
		what, crit := wholeTree(c.a.resolve(s.s))
		if crit && (!named || cleanPath(s.s) != ".") {
			c.concern(EffectDeletes, SeverityCritical, true, "find "+how+" deletes "+what+" ("+s.s+")")
			return
		}
	}
}
