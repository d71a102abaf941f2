package safety

import (
	"regexp"
	"strings"
)

// This file classifies commands that delete, write or change files.

func remove(c *call) {
	flags, targets := opts(c.args, "", false)
	if c.base == "shred" || c.base == "wipe" || c.base == "srm" {
		c.concern(SeverityCritical, true, c.base+" destroys file contents beyond recovery")
	}
	recursive := has(flags, "rR", "--recursive")
	force := has(flags, "f", "--force")
	if has(flags, "", "--no-preserve-root") {
		c.concern(SeverityCritical, true, "disables rm's protection of /")
	}
	if len(targets) == 0 {
		c.concern(SeverityMedium, false, "deletes files")
	}
	for _, t := range targets {
		c.path(t, OpWrite)
		switch {
		case t.dynamic:
			c.unanalyzable("deletes " + t.s + ", known only at run time")
		case recursive || force:
			if what, ok := criticalDelete(c.a.resolve(t.s)); ok {
				c.concern(SeverityCritical, true, "recursive or forced delete of "+what+" ("+t.s+")")
			} else {
				c.concern(SeverityHigh, false, "recursive or forced delete of "+t.s)
			}
		default:
			if what, ok := criticalDelete(c.a.resolve(t.s)); ok && (systemPath(c.a.resolve(t.s)) || cleanPath(c.a.resolve(t.s)) == "~") {
				c.concern(SeverityCritical, true, "deletes "+what+" ("+t.s+")")
			} else {
				c.concern(SeverityMedium, false, "deletes "+t.s)
			}
		}
	}
}

var worldWritable = regexp.MustCompile(`^(0?[0-7]?[0-7][0-7][2367]|[ugoa]*[+=][rwxXst]*w[rwxXst]*|[0-7]*[4-7][0-7]{3}|[ugoa]*[+=][rwxX]*s[rwxXst]*)$`)

func permissions(c *call) {
	flags, ops := opts(c.args, "--reference", false)
	recursive := has(flags, "R", "--recursive")
	if len(ops) == 0 {
		c.concern(SeverityMedium, false, c.base+" changes file metadata")
		return
	}
	spec, targets := ops[0], ops[1:]
	switch c.base {
	case "chmod":
		if !spec.dynamic && (worldWritable.MatchString(spec.s) || spec.s == "777" || spec.s == "a+rwx") {
			c.concern(SeverityHigh, false, "chmod "+spec.s+" makes files writable by everyone or setuid")
		}
	case "chown", "chgrp":
		owner, _, _ := strings.Cut(spec.s, ":")
		if owner == "root" || owner == "0" || strings.HasSuffix(spec.s, ":root") || c.base == "chgrp" && spec.s == "root" {
			c.concern(SeverityHigh, false, c.base+" gives files to root")
		}
	}
	c.concern(SeverityMedium, false, c.base+" changes file metadata")
	for _, t := range targets {
		c.path(t, OpWrite)
		if recursive && !t.dynamic {
			if what, ok := criticalDelete(c.a.resolve(t.s)); ok {
				c.concern(SeverityCritical, true, "recursive "+c.base+" of "+what+" ("+t.s+")")
			}
		}
		if t.dynamic && recursive {
			c.unanalyzable("recursive " + c.base + " of " + t.s + ", known only at run time")
		}
	}
}

func copyMove(c *call) {
	switch c.base {
	case "scp", "sftp":
		c.concern(SeverityHigh, false, c.base+" copies files to or from another host")
	case "rsync":
		for _, w := range c.args {
			if remoteSpec(w.s) {
				c.concern(SeverityHigh, false, "rsync copies files to or from another host ("+w.s+")")
				break
			}
		}
		if f, ok := hasPrefixFlag(words(c.args), "-e", "--rsh", "--rsync-path"); ok {
			c.concern(SeverityHigh, true, "rsync runs a remote shell command ("+f+")")
		}
	}
	flags, ops := opts(c.args, "-t --target-directory -S --suffix -m --mode -o --owner -g --group -e --rsh --rsync-path --exclude --include --filter -f -T", false)
	dest := -1
	if _, ok := hasPrefixFlag(flags, "-t", "--target-directory"); ok {
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
	if c.base == "mv" {
		for _, w := range ops[:max(len(ops)-1, 0)] {
			if what, ok := criticalDelete(w.s); ok && !w.dynamic {
				c.concern(SeverityCritical, true, "moves away "+what+" ("+w.s+")")
			}
		}
	}
	c.concern(SeverityMedium, false, c.base+" writes files")
}

// remoteSpec reports host:path or user@host:path arguments.
func remoteSpec(s string) bool {
	host, _, ok := strings.Cut(s, ":")
	return ok && host != "" && !strings.ContainsAny(host, "/") && !strings.HasPrefix(s, "-")
}

func writeFiles(c *call) {
	flags, ops := opts(c.args, "-C --directory -d -r -t -m --mode -p -i --input -o --output -s --size -f --file -x", false)
	switch c.base {
	case "tar", "unzip", "gunzip", "gzip", "zip", "bzip2", "xz", "unxz", "7z":
		if f, ok := hasPrefixFlag(flags, "--to-command", "--checkpoint-action", "--use-compress-program", "-I", "--info-script", "--new-volume-script", "-F", "-TT", "--unzip-command", "--rsh-command"); ok && (c.base == "tar" || c.base == "zip") {
			c.concern(SeverityHigh, true, c.base+" "+f+" runs another program")
		}
		if c.base == "tar" && !has(flags, "xcruA", "--extract", "--create", "--append", "--update", "--get") && len(flags) > 0 && strings.ContainsAny(flags[0], "t") {
			return // listing an archive
		}
		if c.base == "unzip" && has(flags, "l", "--list") {
			return
		}
		c.concern(SeverityMedium, false, c.base+" creates or extracts files")
		for _, w := range ops {
			c.path(w, OpWrite)
		}
		return
	case "patch":
		c.concern(SeverityMedium, false, "patch modifies files")
		for _, w := range ops {
			c.path(w, OpWrite)
		}
		return
	case "mknod":
		c.concern(SeverityHigh, false, "mknod creates a device node")
	}
	c.concern(SeverityMedium, false, c.base+" writes files")
	for _, w := range ops {
		c.path(w, OpWrite)
	}
}

func dd(c *call) {
	for _, w := range c.args {
		switch {
		case strings.HasPrefix(w.s, "if="):
			c.concern(SeverityCritical, true, "dd copies raw data ("+w.s+")")
			c.a.path(c.idx, strings.TrimPrefix(w.s, "if="), OpRead, false)
		case strings.HasPrefix(w.s, "of="):
			c.path(word{s: strings.TrimPrefix(w.s, "of="), dynamic: w.dynamic}, OpWrite)
			c.concern(SeverityMedium, false, "dd writes "+strings.TrimPrefix(w.s, "of="))
		}
	}
	if c.a.res.Commands[c.idx].Severity < SeverityMedium {
		c.concern(SeverityMedium, false, "dd copies raw data")
	}
}

func sed(c *call) {
	flags, ops := opts(c.args, "-e --expression -f --file -l --line-length -s -E -r", false)
	inPlace := false
	for _, f := range flags {
		if f == "-i" || strings.HasPrefix(f, "--in-place") || (strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "--") && strings.Contains(f, "i")) {
			inPlace = true
		}
	}
	var scripts []word
	for i, w := range c.args {
		if (w.s == "-e" || w.s == "--expression") && i+1 < len(c.args) {
			scripts = append(scripts, c.args[i+1])
		}
		if (w.s == "-f" || w.s == "--file") && i+1 < len(c.args) {
			c.path(c.args[i+1], OpRead)
			c.concern(SeverityMedium, false, "sed runs a script file")
		}
	}
	files := ops
	if len(scripts) == 0 && len(ops) > 0 {
		scripts, files = ops[:1], ops[1:]
	}
	for _, s := range scripts {
		if s.dynamic {
			c.unanalyzable("sed script known only at run time")
			continue
		}
		if sedRunsOrWrites(s.s) {
			c.concern(SeverityHigh, true, "sed script can write files or run commands (e/w): "+s.s)
		}
	}
	op := OpRead
	if inPlace {
		op = OpWrite
		c.concern(SeverityMedium, false, "sed -i edits files in place")
	}
	for _, f := range files {
		c.path(f, op)
	}
}

// sedRunsOrWrites is deliberately over-eager: a false alarm costs one
// approval, a miss runs a command.
func sedRunsOrWrites(script string) bool {
	for _, part := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
		p := strings.TrimSpace(part)
		// Strip an address: digits, $, ranges, /regex/.
		p = strings.TrimLeft(p, "0123456789$,!~ ")
		if strings.HasPrefix(p, "/") {
			if end := strings.Index(p[1:], "/"); end >= 0 {
				p = strings.TrimLeft(p[end+2:], "0123456789$,!~ /")
			}
		}
		if p == "" {
			continue
		}
		switch p[0] {
		case 'e', 'w', 'W':
			return true
		case 's':
			if len(p) > 1 {
				d := p[1]
				parts := strings.Split(p[2:], string(d))
				if len(parts) >= 3 && strings.ContainsAny(parts[len(parts)-1], "ewW") {
					return true
				}
			}
		}
	}
	return false
}

func find(c *call) {
	if c.base == "fd" || c.base == "fdfind" {
		for i, w := range c.args {
			if w.s == "-x" || w.s == "--exec" || w.s == "-X" || w.s == "--exec-batch" {
				c.concern(SeverityHigh, true, "fd "+w.s+" runs a command for each match")
				c.wrap(Opaque, c.args[i+1:])
				return
			}
		}
		return
	}
	for i := 0; i < len(c.args); i++ {
		w := c.args[i]
		switch w.s {
		case "-exec", "-execdir", "-ok", "-okdir":
			c.concern(SeverityHigh, true, "find "+w.s+" runs a command for each match")
			j := i + 1
			for j < len(c.args) && c.args[j].s != ";" && c.args[j].s != "+" {
				j++
			}
			c.wrap(Opaque, c.args[i+1:j]) // {} stands for each match
			i = j
		case "-delete":
			c.concern(SeverityHigh, true, "find -delete removes every match")
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			c.concern(SeverityHigh, true, "find "+w.s+" writes a file")
			if i+1 < len(c.args) {
				c.path(c.args[i+1], OpWrite)
			}
		}
	}
}
