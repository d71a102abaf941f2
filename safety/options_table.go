package safety

// The option models. Each lists every option the analyser accepts for the
// command without a rule naming it; an option missing here is unvetted,
// which errs toward asking. Values that are files are typed as such so
// that their sensitivity and confinement are checked like any other path.

var (
	lsModel = model(
		flags("-a", "-A", "-l", "-h", "-R", "-t", "-r", "-S", "-1", "-d", "-F", "-G", "-i", "-n", "-o", "-g", "-p",
			"-s", "-u", "-c", "-x", "-X", "-v", "-U", "-f", "-C", "-m", "-q", "-Q", "-k", "-L", "-H", "-Z", "-N", "-b",
			"--all", "--almost-all", "--human-readable", "--si", "--recursive", "--reverse", "--size", "--classify",
			"--directory", "--inode", "--numeric-uid-gid", "--no-group", "--group-directories-first", "--color",
			"--colour", "--full-time", "--dereference", "--dereference-command-line", "--hyperlink", "--zero",
			"--literal", "--escape", "--author", "--context", "--kibibytes", "--file-type", "--show-control-chars",
			"--hide-control-chars", "--quote-name", "--indicator-style", "--time", "--sort", "--format"),
		texts("-w", "--width", "-I", "--ignore", "--hide", "--time-style", "--block-size", "--quoting-style", "-T", "--tabsize"),
	)
	catModel = model(flags("-n", "-b", "-A", "-e", "-E", "-s", "-t", "-T", "-u", "-v", "--number", "--number-nonblank",
		"--show-all", "--show-ends", "--show-tabs", "--squeeze-blank", "--show-nonprinting"))
	headModel = func() *optionModel {
		m := model(flags("-q", "-v", "-z", "--quiet", "--silent", "--verbose", "--zero-terminated", "-f", "-F",
			"--follow", "--retry"),
			texts("-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid", "--max-unchanged-stats"))
		m.numeric = true
		return m
	}()
	wcModel = model(flags("-l", "-w", "-c", "-m", "-L", "--lines", "--words", "--bytes", "--chars", "--max-line-length",
		"--total"), reads("--files0-from"))
	grepModel = func() *optionModel {
		m := model(
			flags("-i", "-y", "-v", "-n", "-r", "-R", "-l", "-L", "-c", "-o", "-q", "-s", "-w", "-x", "-E", "-F", "-G",
				"-P", "-H", "-h", "-I", "-a", "-z", "-Z", "-b", "-U", "-T", "--color", "--colour", "--recursive",
				"--dereference-recursive", "--ignore-case", "--no-ignore-case", "--invert-match", "--line-number",
				"--files-with-matches", "--files-without-match", "--count", "--only-matching", "--quiet", "--silent",
				"--word-regexp", "--line-regexp", "--extended-regexp", "--fixed-strings", "--basic-regexp",
				"--perl-regexp", "--with-filename", "--no-filename", "--null", "--no-messages", "--null-data",
				"--byte-offset", "--text", "--initial-tab", "--line-buffered", "--binary"),
			texts("-e", "--regexp", "-m", "--max-count", "-A", "-B", "-C", "--context", "--after-context",
				"--before-context", "--exclude", "--exclude-dir", "--label", "-d", "--directories", "-D", "--devices",
				"--binary-files"),
			// The files an include glob selects are read: --include=.env
			// reads a secret as surely as naming it.
			reads("-f", "--file", "--exclude-from"),
			globs("--include"),
		)
		m.numeric = true
		return m
	}()
	rgModel = model(
		flags("-i", "-S", "-s", "-v", "-w", "-x", "-F", "-n", "-N", "-l", "-c", "-o", "-q", "-u", "-H", "-I", "-L",
			"-U", "-a", "-P", "-0", "-p", "-b", "--hidden", "--no-ignore", "--files", "--json", "--vimgrep",
			"--count", "--count-matches", "--files-with-matches", "--files-without-match", "--line-number",
			"--no-line-number", "--no-heading", "--heading", "--color", "--colour", "--smart-case", "--ignore-case",
			"--case-sensitive", "--fixed-strings", "--word-regexp", "--line-regexp", "--invert-match", "--multiline",
			"--multiline-dotall", "--follow", "--no-messages", "--stats", "--trim", "--type-list", "--column",
			"--byte-offset", "--passthru", "--null", "--only-matching", "--no-ignore-vcs", "--no-ignore-parent",
			"--no-ignore-dot", "--no-ignore-global", "--no-ignore-exclude", "--no-ignore-files", "--one-file-system",
			"--glob-case-insensitive", "--text", "--pretty", "--unrestricted", "--no-filename", "--with-filename",
			"--quiet", "--sortr", "--sort-files", "--crlf", "--pcre2", "--auto-hybrid-regex", "--no-config",
			"--max-columns-preview", "--include-zero", "--no-unicode", "--debug", "--trace", "--files-without-match"),
		texts("-e", "--regexp", "-t", "--type", "-T", "--type-not", "-m", "--max-count", "-A", "-B", "-C", "--context",
			"--after-context", "--before-context", "-M", "--max-columns", "-j", "--threads", "-d", "--max-depth",
			"--sort", "--max-filesize", "-E", "--encoding", "--engine", "-r", "--replace", "--context-separator",
			"--field-match-separator", "--field-context-separator", "--path-separator", "--type-add", "--colors",
			"--regex-size-limit", "--dfa-size-limit", "--pre-glob"),
		reads("-f", "--file", "--ignore-file"),
		globs("-g", "--glob", "--iglob"),
		programs("--pre", "--hostname-bin"),
	)
	diffModel = model(
		flags("-u", "-r", "-N", "-q", "-s", "-y", "-w", "-b", "-B", "-i", "-a", "-c", "-p", "-t", "-T", "-d", "-e",
			"-n", "-E", "-Z", "--brief", "--unified", "--recursive", "--new-file", "--ignore-all-space",
			"--ignore-space-change", "--ignore-blank-lines", "--ignore-case", "--side-by-side", "--color", "--text",
			"--no-dereference", "--strip-trailing-cr", "--suppress-common-lines", "--expand-tabs", "--minimal",
			"--speed-large-files", "--report-identical-files", "--show-c-function", "--initial-tab",
			"--unidirectional-new-file", "--ignore-tab-expansion", "--ignore-trailing-space", "--normal",
			"--left-column", "--suppress-blank-empty", "--ignore-file-name-case", "--no-ignore-file-name-case"),
		texts("-U", "-C", "-x", "--exclude", "--label", "-I", "--ignore-matching-lines", "-W", "--width", "-F",
			"--show-function-line", "--tabsize", "--palette", "--horizon-lines", "-S", "--starting-file"),
		reads("-X", "--exclude-from", "--from-file", "--to-file"),
	)
	sortModel = model(
		flags("-n", "-r", "-u", "-f", "-b", "-h", "-V", "-M", "-g", "-s", "-c", "-C", "-z", "-R", "-d", "-i", "-m",
			"--reverse", "--numeric-sort", "--unique", "--ignore-case", "--human-numeric-sort", "--version-sort",
			"--stable", "--check", "--zero-terminated", "--random-sort", "--merge", "--debug", "--month-sort",
			"--general-numeric-sort", "--dictionary-order", "--ignore-leading-blanks", "--ignore-nonprinting"),
		texts("-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "--parallel", "--batch-size", "--sort"),
		// The random source's bytes decide the order shown: a secret read.
		reads("--files0-from", "--random-source"),
		// -o is judged as a write by the sort classifier.
		writes("-T", "--temporary-directory"),
		texts("-o", "--output"),
		programs("--compress-program"),
	)
	dateModel = func() *optionModel {
		m := model(
			// -I takes its precision attached (-Iseconds): never -s.
			optionalValue("-I"),
			flags("-u", "-R", "--utc", "--universal", "--rfc-2822", "--rfc-email", "--rfc-3339", "--iso-8601",
				"--debug"),
			texts("-d", "--date"),
			reads("-f", "--file", "-r", "--reference"),
			dangerous("-s", "--set"),
		)
		m.why = map[string]string{"-s": "sets the system clock", "--set": "sets the system clock"}
		return m
	}()
	simpleModels = map[string]*optionModel{
		"pwd":      model(flags("-L", "-P")),
		"which":    model(flags("-a", "-s")),
		"whoami":   model(),
		"uname":    model(flags("-a", "-s", "-n", "-r", "-v", "-m", "-p", "-i", "-o", "--all", "--kernel-name", "--nodename", "--kernel-release", "--kernel-version", "--machine", "--processor", "--hardware-platform", "--operating-system")),
		"id":       model(flags("-u", "-g", "-G", "-n", "-r", "-a", "-z", "-Z", "--user", "--group", "--groups", "--name", "--real", "--zero")),
		"groups":   model(),
		"nproc":    model(flags("--all"), texts("--ignore")),
		"arch":     model(),
		"uptime":   model(flags("-p", "-s", "--pretty", "--since")),
		"free":     model(flags("-h", "-b", "-k", "-m", "-g", "-t", "-w", "-l", "--human", "--si", "--total", "--wide", "--kilo", "--mega", "--giga", "--bytes", "--lohi"), texts("-s", "--seconds", "-c", "--count")),
		"df":       model(flags("-h", "-H", "-k", "-T", "-i", "-a", "-l", "-P", "--human-readable", "--si", "--inodes", "--local", "--print-type", "--portability", "--total", "--all", "--sync", "--no-sync", "--output"), texts("-t", "--type", "-x", "--exclude-type", "-B", "--block-size")),
		"du":       model(flags("-h", "-s", "-a", "-c", "-k", "-m", "-x", "-L", "-H", "-P", "-b", "-l", "-0", "-S", "--summarize", "--human-readable", "--all", "--total", "--apparent-size", "--si", "--one-file-system", "--dereference", "--null", "--bytes", "--count-links", "--separate-dirs", "--time", "--inodes"), texts("-d", "--max-depth", "--exclude", "-B", "--block-size", "-t", "--threshold", "--time-style"), reads("-X", "--exclude-from", "--files0-from")),
		"tree":     model(flags("-a", "-d", "-f", "-i", "-l", "-C", "-n", "-s", "-h", "-D", "-F", "-p", "-u", "-g", "-J", "-X", "-q", "-N", "-Q", "-r", "-t", "-v", "-U", "-c", "-x", "--noreport", "--dirsfirst", "--gitignore", "--prune", "--du", "--si", "--inodes", "--device", "--matchdirs", "--ignore-case", "--filesfirst", "--fromfile", "--info"), texts("-L", "-I", "-P", "--charset", "--sort", "--filelimit", "--timefmt"), writes("-o")),
		"stat":     model(flags("-L", "-f", "-t", "--terse", "--dereference", "--file-system"), texts("-c", "--format", "--printf")),
		"file":     model(flags("-b", "-i", "-L", "-h", "-z", "-Z", "-k", "-s", "-N", "-E", "-r", "-0", "--mime", "--mime-type", "--mime-encoding", "--brief", "--dereference", "--no-dereference", "--uncompress", "--keep-going", "--special-files", "--no-pad", "--raw", "--print0", "--extension", "--apple"), texts("-F", "--separator", "-e", "--exclude", "-P", "--parameter"), reads("-m", "--magic-file", "-f", "--files-from")),
		"realpath": model(flags("-e", "-m", "-L", "-P", "-q", "-s", "-z", "--canonicalize-existing", "--canonicalize-missing", "--logical", "--physical", "--quiet", "--strip", "--no-symlinks", "--zero"), dirs("--relative-to", "--relative-base")),
		"readlink": model(flags("-f", "-e", "-m", "-n", "-q", "-s", "-v", "-z", "--canonicalize", "--canonicalize-existing", "--canonicalize-missing", "--no-newline", "--quiet", "--silent", "--verbose", "--zero")),
		"basename": model(flags("-a", "-z", "--multiple", "--zero"), texts("-s", "--suffix")),
		"dirname":  model(flags("-z", "--zero")),
		"cut":      model(flags("-s", "-z", "-n", "--complement", "--only-delimited", "--zero-terminated"), texts("-d", "-f", "-c", "-b", "--delimiter", "--fields", "--characters", "--bytes", "--output-delimiter")),
		"tr":       model(flags("-d", "-s", "-c", "-C", "-t", "--delete", "--squeeze-repeats", "--complement", "--truncate-set1")),
		"uniq":     model(flags("-c", "-d", "-u", "-i", "-z", "-D", "--count", "--repeated", "--unique", "--ignore-case", "--zero-terminated", "--all-repeated"), texts("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars", "--group")),
		"nl":       model(flags("-p", "--no-renumber"), texts("-b", "-n", "-s", "-v", "-w", "-i", "-d", "-h", "-f", "-l", "--body-numbering", "--number-format", "--number-separator", "--starting-line-number", "--number-width", "--line-increment")),
		"tac":      model(flags("-b", "-r", "--before", "--regex"), texts("-s", "--separator")),
		"rev":      model(),
		"fold":     model(flags("-b", "-s", "--bytes", "--spaces"), texts("-w", "--width")),
		"fmt":      model(flags("-c", "-s", "-t", "-u", "--crown-margin", "--split-only", "--uniform-spacing"), texts("-w", "--width", "-g", "--goal", "-p", "--prefix")),
		"paste":    model(flags("-s", "-z", "--serial", "--zero-terminated"), texts("-d", "--delimiters")),
		"column":   model(flags("-t", "-x", "-n", "-e", "-J", "-r", "--table", "--fillrows", "--json"), texts("-s", "-c", "-o", "-N", "-R", "-H", "-W", "-E", "-d", "--separator", "--output-separator", "--table-columns", "--output-width")),
		"expand":   model(flags("-i", "--initial"), texts("-t", "--tabs")),
		"unexpand": model(flags("-a", "--all", "--first-only"), texts("-t", "--tabs")),
		"comm":     model(flags("-1", "-2", "-3", "-i", "-z", "--check-order", "--nocheck-order", "--total", "--zero-terminated"), texts("--output-delimiter")),
		"cmp":      model(flags("-b", "-l", "-s", "--print-bytes", "--verbose", "--quiet", "--silent"), texts("-i", "-n", "--ignore-initial", "--bytes")),
		"join":     model(flags("-i", "--ignore-case", "--check-order", "--nocheck-order", "--header", "-z"), texts("-t", "-1", "-2", "-o", "-a", "-v", "-e", "-j")),
		"strings":  model(flags("-a", "-d", "-f", "--all", "--data", "--print-file-name", "-w", "--include-all-whitespace"), texts("-n", "--bytes", "-t", "--radix", "-e", "--encoding", "-s", "--output-separator")),
		"od":       model(flags("-b", "-c", "-d", "-f", "-i", "-l", "-o", "-s", "-x", "-v", "--output-duplicates", "--traditional"), texts("-A", "-t", "-N", "-j", "-w", "--address-radix", "--format", "--read-bytes", "--skip-bytes", "--width", "--endian")),
		"hexdump":  model(flags("-b", "-c", "-C", "-d", "-o", "-x", "-v", "--canonical", "--no-squeezing"), texts("-n", "-s", "-e", "--length", "--skip", "--format"), reads("-f", "--format-file")),
		"xxd":      model(flags("-p", "-ps", "-r", "-u", "-i", "-b", "-e", "-a", "-C", "-E", "-plain", "-revert", "-bits", "-autoskip", "-capitalize", "-include", "-postscript", "-uppercase"), texts("-l", "-s", "-c", "-g", "-o", "-n", "-len", "-seek", "-cols", "-groupsize", "-name")),
		"base64":   model(flags("-d", "-i", "-D", "--decode", "--ignore-garbage"), texts("-w", "--wrap", "-b", "--break")),
		"md5sum":   checksumModel, "sha1sum": checksumModel, "sha256sum": checksumModel, "sha512sum": checksumModel, "b2sum": checksumModel, "cksum": checksumModel,
		"seq":      model(flags("-w", "--equal-width"), texts("-s", "-f", "--separator", "--format")),
		"sleep":    model(),
		"ps":       model(flags("-e", "-f", "-A", "-a", "-l", "-F", "-H", "-x", "-w", "-j", "-L", "-T", "-m", "-M", "-N", "-y", "-d", "--forest", "--no-headers", "--headers", "-c", "--cumulative", "--deselect", "-ww"), texts("-u", "-U", "-p", "-o", "-O", "-C", "-g", "-G", "-t", "-s", "-q", "--sort", "--pid", "--ppid", "--user", "--format", "--cols", "--columns", "--width", "--lines", "--rows", "-k")),
		"pgrep":    model(flags("-l", "-a", "-f", "-x", "-n", "-o", "-v", "-c", "-i", "-w", "--list-name", "--list-full", "--full", "--exact", "--newest", "--oldest", "--inverse", "--count", "--ignore-case", "--lightweight"), texts("-u", "-U", "-P", "-g", "-G", "-s", "-t", "-d", "--delimiter", "--parent", "--euid", "--uid", "--pgroup", "--group", "--session", "--terminal")),
		"pidof":    model(flags("-s", "-c", "-x", "-z", "-q"), texts("-o", "-d", "--omit-pid")),
		"tty":      model(flags("-s", "--silent", "--quiet")),
		"logname":  model(),
		"hostname": model(flags("-f", "-s", "-i", "-I", "-d", "-A", "-a", "--fqdn", "--long", "--short", "--ip-address", "--all-ip-addresses", "--all-fqdns", "--domain", "--alias")),
		"cal":      model(flags("-1", "-3", "-y", "-j", "-m", "-s", "-w", "-Y", "--monday", "--sunday", "--year", "--julian", "--three", "--week", "--vertical", "--twelve"), texts("-n", "--months", "--color")),
		"lscpu":    model(flags("-a", "-b", "-c", "-e", "-J", "-p", "-s", "-x", "-y", "--all", "--online", "--offline", "--json", "--extended", "--parse", "--hex", "--physical")),
		"lsblk":    model(flags("-a", "-b", "-d", "-f", "-J", "-l", "-m", "-n", "-p", "-P", "-r", "-S", "-t", "-z", "--all", "--bytes", "--fs", "--json", "--list", "--perms", "--paths", "--raw", "--topology", "--nodeps", "--noheadings"), texts("-o", "--output", "-x", "--sort", "-e", "-I")),
		"numfmt":   model(flags("--debug", "-z", "--zero-terminated"), texts("--to", "--from", "--from-unit", "--to-unit", "--suffix", "--format", "--field", "--padding", "--round", "--invalid", "--grouping", "-d", "--delimiter", "--header")),
		"factor":   model(flags("-h", "--exponents")),
		"shuf":     model(flags("-e", "-r", "-z", "--echo", "--repeat", "--zero-terminated"), texts("-n", "-i", "--head-count", "--input-range"), reads("--random-source"), writes("-o", "--output")),
		"zcat":     model(flags("-f", "-q", "-v", "-l", "--force", "--quiet", "--verbose", "--list")),
		"bzcat":    model(flags("-s", "-q", "-v", "--small", "--quiet", "--verbose")),
		"xzcat":    model(flags("-q", "-v", "-T", "--quiet", "--verbose"), texts("--threads", "-F", "--format")),
		"whereis":  model(flags("-b", "-m", "-s", "-u", "-l"), dirs("-B", "-M", "-S")),
		"whatis":   model(flags("-r", "-w", "-l", "--regex", "--wildcard", "--long")),
		"apropos":  model(flags("-r", "-w", "-e", "-a", "-l", "--regex", "--wildcard", "--exact", "--and", "--long")),
		"locate":   model(flags("-i", "-c", "-e", "-b", "-w", "-0", "-S", "-r", "-A", "--ignore-case", "--count", "--existing", "--basename", "--wholename", "--null", "--statistics", "--all", "--regex"), texts("-l", "-n", "--limit")),
		"lsof":     model(flags("-n", "-P", "-t", "-l", "-V", "-b", "-w", "-R", "-X"), texts("-i", "-p", "-c", "-u", "-g", "-a", "-d", "-s", "-F", "+D", "+d")),
		"netstat":  model(flags("-t", "-u", "-l", "-n", "-p", "-a", "-r", "-s", "-i", "-e", "-W", "-x", "-4", "-6", "--tcp", "--udp", "--listening", "--numeric", "--program", "--all", "--route", "--statistics", "--interfaces", "--extend", "--wide")),
		"ss":       model(flags("-t", "-u", "-l", "-n", "-p", "-a", "-s", "-x", "-e", "-m", "-i", "-o", "-r", "-H", "-4", "-6", "-w", "--tcp", "--udp", "--listening", "--numeric", "--processes", "--all", "--summary", "--unix", "--extended", "--no-header", "--info")),
		"vmstat":   model(flags("-a", "-f", "-m", "-s", "-d", "-D", "-w", "-t", "-n", "--active", "--forks", "--slabs", "--stats", "--disk", "--wide", "--timestamp"), texts("-S", "--unit", "-p", "--partition")),
		"w":        model(flags("-h", "-s", "-f", "-i", "-u", "-o", "--no-header", "--short", "--from", "--ip-addr", "--no-current", "--old-style")),
		"who":      model(flags("-a", "-b", "-H", "-q", "-r", "-u", "-m", "-l", "-d", "-p", "-s", "-T", "--all", "--boot", "--heading", "--count", "--runlevel", "--users")),
		"users":    model(),
		"printf":   model(texts("-v")),
		"man":      model(flags("-k", "-f", "-a", "-w", "-W", "--apropos", "--whatis", "--all", "--where", "--path"), texts("-S", "-s", "--sections", "-L", "--locale", "-M", "--manpath")),
		"yq":       model(flags("-r", "-j", "-o", "-P", "-e", "-n", "-C", "-M", "-N", "--no-colors", "--colors", "--prettyPrint", "--exit-status", "--null-input", "--no-doc", "--unwrapScalar", "--raw-output"), texts("-p", "-I", "--input-format", "--output-format", "--indent", "--expression", "--arg")),
		"look":     model(flags("-b", "-d", "-f", "--binary", "--alphanum", "--ignore-case"), texts("-t", "--terminate")),
		"tsort":    model(),
		"true":     model(),
		"false":    model(),
		"clear":    model(flags("-x"), texts("-T")),
		"tput":     model(flags("-S", "-V", "-x"), texts("-T")),
		"less":     lessModel,
		"more":     model(flags("-d", "-f", "-l", "-c", "-p", "-s", "-u", "--silent", "--logical", "--no-pause", "--print-over", "--clean-print", "--squeeze", "--plain"), texts("-n", "--lines")),
		"egrep":    grepModel, "fgrep": grepModel, "zgrep": grepModel,
		"jq": model(flags("-r", "-c", "-n", "-s", "-e", "-S", "-j", "-a", "-C", "-M", "-R", "--tab", "--raw-output",
			"--compact-output", "--null-input", "--slurp", "--exit-status", "--sort-keys", "--join-output",
			"--ascii-output", "--color-output", "--monochrome-output", "--raw-input", "--seq", "--stream", "--args",
			"--jsonargs", "--raw-output0", "--unbuffered"),
			texts("--indent", "--arg", "--argjson", "-L"), reads("--slurpfile", "--rawfile", "-f", "--from-file")),
		"bc": model(flags("-l", "-q", "-s", "-w", "--mathlib", "--quiet", "--standard", "--warn")),
	}
	checksumModel = model(flags("-b", "-t", "-c", "-z", "-w", "--binary", "--text", "--check", "--tag", "--zero", "--quiet", "--status", "--strict", "--warn", "--ignore-missing"), texts("-l", "--length", "-a", "--algorithm"))
	lessModel     = model(
		flags("-R", "-r", "-S", "-N", "-n", "-F", "-X", "-i", "-I", "-M", "-m", "-s", "-K", "-Q", "-q", "-w", "-W", "-e",
			"-E", "-f", "-g", "-G", "-a", "-c", "-d", "-L", "-J", "-u", "-U", "-V", "--RAW-CONTROL-CHARS", "--raw-control-chars",
			"--chop-long-lines", "--LINE-NUMBERS", "--line-numbers", "--quit-if-one-screen", "--no-init", "--ignore-case",
			"--IGNORE-CASE", "--long-prompt", "--squeeze-blank-lines", "--quit-on-intr", "--QUIET", "--quiet",
			"--silent", "--hilite-unread", "--HILITE-UNREAD", "--quit-at-eof", "--QUIT-AT-EOF", "--no-lessopen",
			"--status-column", "--mouse", "--wheel-lines", "--use-color", "--follow-name", "--incsearch"),
		texts("-x", "--tabs", "-j", "--jump-target", "-p", "--pattern", "-y", "--max-forw-scroll", "-z", "--window",
			"-h", "--max-back-scroll", "-b", "--buffers", "-P", "--prompt", "-t", "--tag", "-D", "--color", "-#", "--shift"),
		configs("-k", "--lesskey-file", "--lesskey-src", "-T", "--tag-file"),
		writes("-o", "-O", "--log-file", "--LOG-FILE"),
	)
)
