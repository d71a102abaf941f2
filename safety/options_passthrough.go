package safety

import "strings"

// Words after "--" in `npm test -- …`, `pnpm test -- …` and `npm run
// build -- …` go to the program the package script runs, most often a
// test runner (Jest, Vitest, Mocha), which npm's option model cannot
// judge. They are vetted against what those runners take: an option that
// loads code or configuration is unvetted (a rule must name it), an
// option that writes names its file, and any word or option value that
// names a path outside the workspace is a read to approve. Other options
// pass, as the script's own flags do.

// jsRunnerCode lists the runners' options whose value is code or a
// configuration that chooses code: config files, setup and teardown
// modules, environments, transforms, resolvers, required modules, and the
// project root (which decides which configuration is found).
var jsRunnerCode = map[string]bool{
	"--config": true, "-c": true, "--setupFiles": true, "--setupFilesAfterEnv": true, "--globalSetup": true,
	"--globalTeardown": true, "--testEnvironment": true, "--env": true, "--environment": true, "--resolver": true,
	"--transform": true, "--testRunner": true, "--runner": true, "--preset": true, "--snapshotResolver": true,
	"--testSequencer": true, "--watchPlugins": true, "--require": true, "-r": true, "--import": true,
	"--loader": true, "--experimental-loader": true, "--rootDir": true, "--root": true, "--roots": true,
	"--dir": true, "--workspace": true, "--project": true, "--projects": true, "--setupFile": true,
	"--configLoader": true, "--node-option": true, "-n": true,
}

// jsRunnerWrites lists the runners' options whose value is a file or
// directory they write.
var jsRunnerWrites = map[string]bool{
	"--outputFile": true, "--coverageDirectory": true, "--coverage.reportsDirectory": true,
	"--outputFile.json": true, "--outputFile.junit": true,
}

// vetPassThrough vets the words a package manager passes on to a script.
func vetPassThrough(c *call, rest []word) {
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w.dynamic {
			c.unvetted(w.s, "is passed on to the script's program and known only at run time")
			continue
		}
		if len(w.s) < 2 || w.s[0] != '-' {
			if outsideWorkspace(w.s) {
				c.path(w, OpRead)
			}
			continue
		}
		name, val, eq := strings.Cut(w.s, "=")
		takes := jsRunnerCode[name] || jsRunnerWrites[name] || name == "--reporter" || name == "--reporters"
		value, text := word{s: val}, w.s
		if takes && !eq && i+1 < len(rest) && !strings.HasPrefix(rest[i+1].s, "-") {
			i++
			value, text = rest[i], w.s+" "+rest[i].s
		}
		switch {
		case jsRunnerCode[name]:
			c.unvetted(text, "is passed on to the test runner, where it loads code or configuration")
			if value.s != "" {
				c.path(value, OpRead)
			}
		case jsRunnerWrites[name] && value.s != "":
			c.path(value, OpWrite)
		case takes && (value.dynamic || strings.ContainsAny(value.s, "/\\") || strings.HasPrefix(value.s, ".")):
			// --reporter=verbose names a built-in; ./r.js is a module.
			c.unvetted(text, "is passed on to the test runner and names a reporter module, which is code")
			c.path(value, OpRead)
		case eq && outsideWorkspace(val):
			c.path(value, OpRead)
		}
	}
}
