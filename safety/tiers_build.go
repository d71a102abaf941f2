package safety

import "strings"

// Build and test tools run project code by design — that is what an
// allow rule such as "go test" or "npm test" accepts. Some of their
// options run a program the rule's author never saw, or write the build
// output anywhere: `go test -exec 'sh -c …'`, `go test -c -o
// .git/hooks/pre-commit`, `npm test --script-shell=./x`, `cargo test
// --config target.….runner=…`. Those are escape hatches (high, never
// auto-approved); the outputs are writes judged like any other.

// buildHatches judges the escape-hatch options of build tool b.
func buildHatches(c *call, b string) {
	switch b {
	case "go":
		for _, v := range goFlagValues(c.args, "exec", "toolexec", "vettool") {
			c.concern(SeverityHigh, true, "go runs the program given to -exec/-toolexec/-vettool ("+v.s+")")
			c.script(Opaque, v)
		}
		for _, v := range goFlagValues(c.args, "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir") {
			c.path(v, OpWrite)
		}
		for _, v := range goFlagValues(c.args, "overlay", "modfile", "pgo") {
			c.path(v, OpRead)
		}
	case "npm", "pnpm", "yarn", "bun":
		for _, w := range c.args {
			if strings.HasPrefix(w.s, "--script-shell") || strings.HasPrefix(w.s, "--node-options") || strings.HasPrefix(w.s, "--userconfig") || strings.HasPrefix(w.s, "--globalconfig") {
				c.concern(SeverityHigh, true, b+" "+w.s+" runs scripts through another program or configuration")
			}
		}
	case "cargo":
		for _, w := range c.args {
			if w.s == "--config" || strings.HasPrefix(w.s, "--config=") || w.s == "-Z" || strings.HasPrefix(w.s, "-Zunstable-options") {
				c.concern(SeverityHigh, true, "cargo "+w.s+" overrides configuration, which can run programs (target runners, rustc wrappers)")
			}
		}
	}
}

// goFlagValues returns the values of Go-style flags (-name v, -name=v,
// --name v, --name=v).
func goFlagValues(args []word, names ...string) []word {
	var out []word
	for i, w := range args {
		if w.dynamic || !strings.HasPrefix(w.s, "-") {
			continue
		}
		f := strings.TrimPrefix(strings.TrimPrefix(w.s, "-"), "-")
		name, val, eq := strings.Cut(f, "=")
		for _, n := range names {
			if name != n {
				continue
			}
			if eq {
				out = append(out, word{s: val})
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
			}
		}
	}
	return out
}
