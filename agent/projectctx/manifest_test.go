package projectctx

import (
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// FuzzSummarizeManifest: manifests are untrusted workspace files; a
// summary never panics, stays valid UTF-8 when the input is, and stays
// bounded.
func FuzzSummarizeManifest(f *testing.F) {
	for _, s := range []string{goMod, packageJSON, pyproject, cargoToml, "[project]\ndependencies = [\n\"a", "require (\n", `{"scripts":{"a":1}}`, "name = '", "[tool.]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, name := range []string{"go.mod", "package.json", "pyproject.toml", "Cargo.toml"} {
			out := summarizeManifest(name, []byte(src))
			if utf8.ValidString(src) && !utf8.ValidString(out) {
				t.Fatalf("%s: summary is not UTF-8: %q", name, out)
			}
			if len(out) > len(src)+4096 {
				t.Fatalf("%s: summary of %d bytes is %d bytes", name, len(src), len(out))
			}
		}
	})
}

// BenchmarkDiscover measures discovery on a workspace with
// every kind of file (done once per run).
func BenchmarkDiscover(b *testing.B) {
	fsys := fstest.MapFS{
		"AGENTS.md": {Data: []byte(strings.Repeat("Rule.\n", 500))}, "README.md": {Data: []byte(strings.Repeat("Docs.\n", 3000))},
		"go.mod": {Data: []byte(goMod)}, "package.json": {Data: []byte(packageJSON)}, "pyproject.toml": {Data: []byte(pyproject)}, "Cargo.toml": {Data: []byte(cargoToml)},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Discover(fsys, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}
