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
	case "deno", "bun":
		// deno run https://…/x.ts downloads code and runs it: a
		// download-then-execute chain in one command.
		for _, w := range c.args {
			if u := strings.ToLower(w.s); !w.dynamic && (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) {
				c.concern(EffectExecutes, SeverityCritical, true, b+" runs code downloaded from "+w.s)
				break
			}
		}
	case "mvn", "mvnw", "gradle", "gradlew":
		jvmBuildHatches(c, b)
	case "cargo":
		for _, w := range c.args {
			if w.s == "--config" || strings.HasPrefix(w.s, "--config=") || w.s == "-Z" || strings.HasPrefix(w.s, "-Zunstable-options") {
				c.concern(EffectExecutes, SeverityHigh, true, "cargo "+w.s+" overrides configuration, which can run programs (target runners, rustc wrappers)")
			}
		}
	}
}
