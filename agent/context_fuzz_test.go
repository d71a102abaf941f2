package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseAttachment: any reference either fails with ErrAttachment or
// yields an attachment whose Name parses back to itself.
func FuzzParseAttachment(f *testing.F) {
	for _, s := range []string{"src/a.go", "src/a.go:L10-L50", "a.go:L7", "a:L0", "x:L9-L3", ":L1", "a.go:L1-L99999999999999999999", "C:\\a.go:L2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		a, err := ParseAttachment(ref)
		if err != nil {
			return
		}
		back, err := ParseAttachment(a.Name())
		if err != nil {
			t.Fatalf("Name %q of %q does not parse: %v", a.Name(), ref, err)
		}
		if back != a {
			t.Fatalf("%q: %+v != %+v", ref, back, a)
		}
	})
}

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

// FuzzParseTodos: whatever a model sends, the plan is bounded and every
// step has text and a known status.
func FuzzParseTodos(f *testing.F) {
	for _, s := range []string{`{"todos":[{"text":"a","status":"done"}]}`, `{"items":["a","b"]}`, `{"todos":[{"title":"x","done":true}]}`, `{"todos":null}`, `[]`, `{"todos":[1]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		items, err := parseTodos(json.RawMessage(args))
		if err != nil {
			return
		}
		if len(items) > maxTodos {
			t.Fatalf("%d items", len(items))
		}
		for _, it := range items {
			if _, ok := todoStatus(string(it.Status)); !ok || (strings.TrimSpace(it.Text) == "" && it.Text != "") {
				t.Fatalf("bad item %+v", it)
			}
		}
	})
}
