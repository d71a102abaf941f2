package safety

import "strings"

// Option models of build and test tools, whose allow rules ("go test",
// "make test", "pytest", "npm test", "cargo test") are the ones users
// write most, and whose escape hatches (-exec, --eval, --config,
// --script-shell) run whatever they are given.

var (
	goBuildFlags = []optGroup{
		flags("-v", "-x", "-a", "-n", "-race", "-msan", "-asan", "-cover", "-trimpath", "-work", "-buildvcs",
			"-linkshared", "-modcacherw", "-json", "-i"),
		texts("-p", "-tags", "-covermode", "-coverpkg", "-mod", "-buildmode", "-compiler", "-installsuffix",
			"-gcflags", "-asmflags", "-gccgoflags", "-ldflags"),
		dirs("-C"),
		programs("-exec", "-toolexec"),
		reads("-overlay", "-modfile", "-pgo"),
		writes("-o"),
	}
	goTestFlags = []optGroup{
		flags("-short", "-failfast", "-benchmem", "-c", "-fullpath", "-test.v"),
		texts("-run", "-bench", "-count", "-timeout", "-cpu", "-parallel", "-benchtime", "-skip", "-shuffle", "-list",
			"-fuzz", "-fuzztime", "-fuzzminimizetime", "-vet"),
		writes("-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace",
			"-outputdir"),
		texts("-memprofilerate", "-blockprofilerate", "-mutexprofilefraction"),
	}
	goModels = map[string]*optionModel{
		"build":    goStyle(goBuildFlags...),
		"install":  goStyle(goBuildFlags...),
		"run":      programArgs(goStyle(goBuildFlags...)),
		"vet":      goStyle(append([]optGroup{programs("-vettool")}, goBuildFlags...)...),
		"test":     goTest(),
		"list":     goStyle(append(goBuildFlags, flags("-m", "-u", "-e", "-deps", "-test", "-export", "-find", "-compiled", "-retracted", "-reuse"), texts("-f"))...),
		"mod":      goStyle(flags("-v", "-x", "-e", "-json", "-diff"), texts("-go", "-compat", "-modfile")),
		"fmt":      goStyle(flags("-n", "-x", "-mod")),
		"version":  goStyle(flags("-m", "-v", "-json")),
		"env":      goStyle(flags("-json", "-changed"), dangerous("-w", "-u")),
		"doc":      goStyle(flags("-all", "-c", "-cmd", "-short", "-src", "-u")),
		"generate": goStyle(append(goBuildFlags, texts("-run", "-skip"))...),
		"clean":    goStyle(flags("-i", "-r", "-n", "-x", "-cache", "-testcache", "-modcache", "-fuzzcache")),
		"tool":     goStyle(flags("-n")),
		"help":     goStyle(),
		"work":     goStyle(),
		"get":      goStyle(append(goBuildFlags, flags("-u", "-t", "-d", "-tool"))...),
	}
	makeModel = func() *optionModel {
		m := model(
			flags("-k", "-s", "-n", "-B", "-i", "-q", "-w", "-r", "-R", "-S", "-e", "-d", "--no-print-directory",
				"--print-directory", "--silent", "--quiet", "--keep-going", "--always-make", "--dry-run",
				"--just-print", "--recon", "--debug", "--trace", "--ignore-errors", "--question",
				"--no-builtin-rules", "--no-builtin-variables", "--no-keep-going", "--stop", "--warn-undefined-variables",
				"--environment-overrides", "--output-sync", "--check-symlink-times", "-L"),
			texts("-j", "--jobs", "-l", "--load-average", "--max-load", "-O", "-W", "--what-if", "--new-file",
				"--assume-new", "-o", "--old-file", "--assume-old"),
			dirs("-C", "--directory"),
			configs("-f", "--file", "--makefile", "-I", "--include-dir"),
			code("--eval", "-E"),
		)
		return m
	}()
	pytestModel = model(
		flags("-v", "-q", "-x", "-s", "-l", "-rA", "--lf", "--last-failed", "--ff", "--failed-first", "--nf",
			"--new-first", "--co", "--collect-only", "--cov", "--no-cov", "--pdb", "--strict-markers", "--strict",
			"--disable-warnings", "--showlocals", "--no-header", "--no-summary", "--color", "--runxfail",
			"--doctest-modules", "--exitfirst", "--verbose", "--quiet", "--sw", "--stepwise", "--stepwise-skip",
			"--cache-clear", "--setup-show", "--setup-only", "--setup-plan", "--fixtures", "--markers", "--version",
			"--help", "--full-trace", "--no-cov-on-fail", "--forked", "--lfnf", "--durations-min", "--capture=no",
			"--trace", "--debug", "-h", "-V", "--benchmark-only", "--benchmark-skip", "--looponfail"),
		texts("-k", "-m", "--tb", "-n", "--numprocesses", "--maxfail", "-r", "--durations", "--cov-report",
			"--cov-fail-under", "--capture", "--log-level", "--log-cli-level", "--import-mode", "--deselect", "-W",
			"--pythonwarnings", "--timeout", "--reruns", "--dist", "--randomly-seed", "--cov-config", "--cov-branch",
			"--count", "--junit-prefix", "--log-format", "--doctest-glob", "-o", "--override-ini", "--asyncio-mode"),
		reads("--ignore", "--ignore-glob"),
		dirs("--rootdir", "--confcutdir"),
		writes("--junitxml", "--junit-xml", "--basetemp", "--result-log", "--log-file", "--html", "--resultlog"),
		configs("-c", "--config-file"),
		// -p NAME imports a plugin module; -p no:NAME disables one and is
		// harmless (see optionModel.judge).
		code("-p"),
	)
	npmModel = model(
		flags("-s", "-q", "-d", "--silent", "--quiet", "--verbose", "--if-present", "--workspaces", "--ws",
			"--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--offline", "--legacy-peer-deps",
			"--save-dev", "-D", "--save", "-S", "--save-exact", "-E", "--no-save", "--production", "--omit=dev",
			"--frozen-lockfile", "--immutable", "--force", "-f", "--json", "--parseable", "--long", "--all",
			"--include-workspace-root", "--no-optional", "--foreground-scripts", "--dry-run", "--yes", "-y",
			"--recursive", "-r", "--stream", "--parallel", "--color", "--version", "-v", "--help", "-h"),
		// A workspace is named by package name or by directory.
		dirs("-w", "--workspace"),
		texts("--loglevel", "--omit", "--include", "--filter", "--depth", "--tag", "--registry",
			"--reporter", "--timeout", "--mode"),
		dirs("--prefix", "-C", "--dir", "--cwd"),
		programs("--script-shell", "--shell", "--editor"),
		configs("--userconfig", "--globalconfig"),
		code("--node-options"),
		dangerous("-g", "--global", "--location=global"),
	)
	cargoModel = model(
		flags("--release", "-r", "--all-features", "--no-default-features", "--no-deps", "--document-private-items", "--workspace", "--all", "--all-targets",
			"--lib", "--bins", "--tests", "--benches", "--examples", "--offline", "--locked", "--frozen", "-q", "-v",
			"-vv", "--quiet", "--verbose", "--no-run", "--no-fail-fast", "--doc", "--keep-going", "--future-incompat-report",
			"--timings", "--ignore-rust-version", "--unit-graph", "--check", "--fix", "--allow-dirty", "--allow-staged",
			"--allow-no-vcs", "--broken-code"),
		texts("-p", "--package", "--features", "-F", "--bin", "--test", "--example", "--bench", "--target", "-j",
			"--jobs", "--profile", "--exclude", "--message-format", "--color"),
		reads("--manifest-path", "--lockfile-path"),
		writes("--target-dir", "--artifact-dir"),
		configs("--config", "-Z"),
	)
)

// programArgs marks m as ending at its first operand: go run's later
// words are the program's own arguments, which the rule's author accepted
// with the program.
func programArgs(m *optionModel) *optionModel {
	m.operandEnds = true
	return m
}

func goStyle(groups ...optGroup) *optionModel {
	m := model(groups...)
	m.goStyle = true
	m.why = map[string]string{"-w": "writes Go's configuration, which later builds obey", "-u": "changes Go's configuration"}
	return m
}

// goTest is the model of go test; after -args every word goes to the test
// binary, whose -test.* flags are go test's own.
func goTest() *optionModel {
	m := goStyle(append(append([]optGroup(nil), goBuildFlags...), goTestFlags...)...)
	m.stop = "-args"
	bin := model()
	bin.goStyle = true
	bin.derive = func(bin *optionModel) {
		for _, g := range goTestFlags {
			for _, n := range g.names {
				bin.opts["-test."+strings.TrimPrefix(n, "-")] = g.kind
			}
		}
		bin.opts["-test.v"] = optFlag
	}
	m.passOn = bin
	return m
}

// optionModelFor finds the model of a command, and the words it applies
// to: for tools with sub-commands, those after the sub-command.
func optionModelFor(base string, args []word) (*optionModel, []word) {
	switch base {
	case "go":
		if len(args) > 0 && !args[0].dynamic {
			if m, ok := goModels[args[0].s]; ok {
				return m, args[1:]
			}
		}
		return nil, nil
	case "make", "gmake":
		return makeModel, args
	case "pytest", "py.test":
		return pytestModel, args
	case "npm", "pnpm", "yarn":
		return npmModel, args
	case "cargo":
		return cargoModel, args
	case "ls", "dir", "vdir":
		return lsModel, args
	case "cat":
		return catModel, args
	case "head", "tail":
		return headModel, args
	case "wc":
		return wcModel, args
	case "grep":
		return grepModel, args
	case "rg":
		return rgModel, args
	case "diff":
		return diffModel, args
	case "sort":
		return sortModel, args
	case "date":
		return dateModel, args
	}
	if m, ok := simpleModels[base]; ok {
		return m, args
	}
	if m, ok := inspectModels[base]; ok {
		return m, args
	}
	return nil, nil
}

// vetBuildArgs vets the words of build tools that their option model
// cannot: make's variable overrides and pytest's ini overrides.
func vetBuildArgs(c *call, m *optionModel, args []word) {
	switch m {
	case makeModel:
		// make NAME=value overrides a variable of the Makefile, and
		// recipes run variables: `make test CC='sh -c …'`, SHELL=…,
		// .SHELLFLAGS=… (make takes any word with "=" as one).
		for _, w := range args {
			if name, v, ok := strings.Cut(w.s, "="); ok && !w.dynamic && !strings.HasPrefix(w.s, "-") && name != "" && !inertValue(v) {
				c.unvetted(w.s, "overrides a make variable, which the Makefile's recipes may run")
			}
		}
	case pytestModel:
		pytestOverrides(c, args)
	case npmModel:
		for i, w := range args {
			if w.s == "--" && !w.dynamic {
				vetPassThrough(c, args[i+1:])
				break
			}
		}
	}
}

// pytestOverrides vets pytest's -o, which overrides ini keys: addopts,
// pythonpath and required_plugins bring in options and code from
// elsewhere.
func pytestOverrides(c *call, args []word) {
	for _, v := range valuesOf(args, "-o", "--override-ini") {
		key, _, _ := strings.Cut(v.s, "=")
		switch strings.TrimSpace(key) {
		case "addopts", "pythonpath", "required_plugins", "cache_dir":
			c.unvetted("-o "+v.s, "overrides pytest's "+key+", which adds options, plugins or import paths")
		}
	}
}
