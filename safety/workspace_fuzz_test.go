package safety

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzWorkspace builds a small tree with symlinks pointing in, out, in
// loops and through "..", and a second root "lib" (a folder of the
// workspace) with symlinks into the first, and returns it opened.
func fuzzWorkspace(tb testing.TB, dir string) *Workspace {
	tb.Helper()
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatal(err)
	}
	root, out, lib := filepath.Join(base, "ws"), filepath.Join(base, "out"), filepath.Join(base, "lib")
	for _, d := range []string{root + "/src/pkg", root + "/.git/hooks", out, lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for _, f := range []string{root + "/src/pkg/a.go", root + "/.env", out + "/secret", lib + "/util.go"} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"in": "src", "out": out, "up": "..", "loop": "loop", "env": ".env",
		"src/pkg/back": "../..", "abs": root + "/src/pkg/a.go", "tolib": lib,
		"../lib/toapp": root + "/.env", "../lib/up": "..",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			tb.Fatal(err)
		}
	}
	w, err := OpenWorkspace(root, WithHome(base), WithFolder("lib", lib))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w
}

// FuzzCheck: Check never panics, and whatever it does not deny lies inside
// the workspace with a Rel that agrees with Resolved.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		".", "", "a", "src/pkg/a.go", "../out/secret", "/etc/passwd", "~/ws/.env", "~root", "file:///etc",
		"file://localhost/x", "in/pkg/a.go", "out/secret", "up/out/secret", "loop", "env", "src/pkg/back/.env",
		"abs", ".ENV::$DATA", ".git./hooks/x", "a\x00b", "a\u202eb", "a/../../ws/x", "//", "./.", "x/", "in/",
		"src/pkg/a.go/x", "\\x", "~", "~/", strings.Repeat("a/", 300), strings.Repeat("../", 50) + "etc",
		"lib/util.go", "lib/../../ws/.env", "lib/toapp", "lib/up/out/secret", "tolib/util.go", "~/lib/../ws/.env", "lib",
	} {
		for op := range Op(3) {
			f.Add(s, uint8(op))
		}
	}
	w := fuzzWorkspace(f, f.TempDir())
	f.Fuzz(func(t *testing.T, p string, opByte uint8) {
		op := Op(opByte % 3)
		pc := w.Check(p, op)
		kernelAgrees(t, w, p, pc)
		switch pc.Decision {
		case Deny:
			if pc.Err == nil || pc.Reason == "" {
				t.Fatalf("Check(%q, %v): Deny without Err or Reason: %+v", p, op, pc)
			}
			return
		case Allow, Confirm:
		default:
			t.Fatalf("Check(%q, %v): decision %v", p, op, pc.Decision)
		}
		name, root := rootOf(w, pc.Resolved)
		if root == "" {
			t.Fatalf("Check(%q, %v) = %v but Resolved %q is outside every root", p, op, pc.Decision, pc.Resolved)
		}
		want := relTo(root, pc.Resolved)
		if name != "" {
			want = folder{name: name}.qualify(want)
		}
		if pc.Rel != want || pc.Rel == ".." || strings.HasPrefix(pc.Rel, "../") || filepath.IsAbs(pc.Rel) {
			t.Fatalf("Check(%q, %v): Rel %q disagrees with Resolved %q", p, op, pc.Rel, pc.Resolved)
		}
		if op == OpWrite && (pc.Rel == "." || pc.Rel == name) {
			t.Fatalf("Check(%q, write) allowed writing the root", p)
		}
		if pc.Err != nil {
			t.Fatalf("Check(%q, %v) = %v with Err %v", p, op, pc.Decision, pc.Err)
		}
	})
}

// kernelAgrees compares Check with the kernel's own resolution of the same
// path (for plain spellings that exist): where the kernel reaches a file
// outside the root, Check must deny; where Check allows an existing path,
// the kernel must reach the same file.
func kernelAgrees(t *testing.T, w *Workspace, p string, pc PathCheck) {
	t.Helper()
	if checkSpelling(p) != "" || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "file:") {
		return
	}
	full := p
	if !filepath.IsAbs(p) {
		full = w.Root() + "/" + p
	}
	if len(full) > maxPathBytes {
		return
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return
	}
	if _, root := rootOf(w, real); root == "" && pc.Decision != Deny {
		t.Fatalf("Check(%q) = %v (Resolved %q) but the kernel reaches %q, outside", p, pc.Decision, pc.Resolved, real)
	}
	if pc.Decision != Deny && pc.Exists {
		a, errA := os.Stat(full)
		b, errB := os.Stat(pc.Resolved)
		if errA == nil && errB == nil && !os.SameFile(a, b) {
			t.Fatalf("Check(%q) resolved to %q, but the kernel opens a different file", p, pc.Resolved)
		}
	}
}

// rootOf names the root the resolved path p lies in: "" and the primary
// root, a folder's name and root, or "" and "" when p is in none.
func rootOf(w *Workspace, p string) (name, root string) {
	if within(w.Root(), p) {
		return "", w.Root()
	}
	for _, f := range w.folders {
		if within(f.ws.Root(), p) {
			return f.name, f.ws.Root()
		}
	}
	return "", ""
}

// FuzzParseAutoApprovePatterns: the seed config loader never panics, and
// whatever it accepts compiles.
func FuzzParseAutoApprovePatterns(f *testing.F) {
	for _, s := range []string{
		`[]`, `[{"pattern":"**/.env","value":false}]`, `{"sensitiveFilePatterns":[{"pattern":"a","value":true}]}`,
		`[{"pattern":"[","value":true}]`, `[{"pattern":"a"}]`, `{`, `null`, `[null]`, `[{"pattern":"{a,{b,c}}","value":false}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, err := ParseAutoApprovePatterns(data)
		if err != nil {
			return
		}
		s, err := NewSensitivity(rules...)
		if err != nil {
			t.Fatalf("accepted rules do not compile: %v", err)
		}
		s.Match("a/b/.env")
	})
}

func BenchmarkCheck(b *testing.B) {
	w := fuzzWorkspace(b, b.TempDir())
	for _, tc := range []struct {
		name, path string
		op         Op
	}{
		{"existing", "src/pkg/a.go", OpRead},
		{"new-file", "src/pkg/new/file.go", OpWrite},
		{"symlinked", "in/pkg/a.go", OpRead},
		{"sensitive", ".env", OpWrite},
		{"outside", "../out/secret", OpRead},
		{"absolute", filepath.Join(w.Root(), "src/pkg/a.go"), OpRead},
		{"invalid", "src/\u202epkg", OpRead},
		{"folder", "lib/util.go", OpRead},
		{"folder-escape", "lib/../../ws/.env", OpRead},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w.Check(tc.path, tc.op)
			}
		})
	}
}
