//go:build unix

package safety

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

var updatePaths = flag.Bool("update-paths", false, "rewrite the verdicts in testdata/paths*/ from the current results")

// The golden path files in testdata/paths*/ are txtar-like archives:
//
//	-- tree --       the fixture, one entry a line:
//	                   dir P | file P [CONTENT] | link P -> TARGET |
//	                   hardlink P -> EXISTING | fifo P
//	                 TARGET may use $REAL (workspace root), $LINK (a symlink
//	                 to it), $OUT (a directory outside) and $BASE (their
//	                 parent, also $HOME for "~").
//	-- cases --      one check a line:  OP PATH => VERDICT
//	                 OP is read, write or chdir; PATH is bare or a Go
//	                 quoted string; VERDICT is "DECISION REL [sensitive]
//	                 [secret] [err=KIND]" with REL "-" when none.
//
// Every archive runs twice, with the workspace opened through its real path
// and through the symlink $LINK; the verdicts must not differ. Run
// `go test ./safety -run TestPathGolden -update-paths` to rewrite the verdicts
// after an intended change, and review the diff.

type goldenSections struct {
	names    []string
	sections map[string]string
}

func parseArchive(data string) goldenSections {
	g := goldenSections{sections: map[string]string{}}
	cur := ""
	for line := range strings.SplitAfterSeq(data, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			cur = strings.TrimSpace(t[3 : len(t)-3])
			g.names = append(g.names, cur)
			continue
		}
		g.sections[cur] += line
	}
	return g
}

type pathFixture struct {
	base, real, link, out string
}

func (f pathFixture) expand(s string) string {
	return strings.NewReplacer("$REAL", f.real, "$LINK", f.link, "$OUT", f.out, "$BASE", f.base, "$HOME", f.base).Replace(s)
}

func buildFixture(t *testing.T, tree string) pathFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := pathFixture{base: base, real: filepath.Join(base, "real"), link: filepath.Join(base, "ws-link"), out: filepath.Join(base, "out")}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(f.real, 0o755))
	must(os.Mkdir(f.out, 0o755))
	must(os.WriteFile(filepath.Join(f.out, "secret.txt"), []byte("outside"), 0o644))
	must(os.Symlink(f.real, f.link))
	for line := range strings.SplitSeq(tree, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		name, target, _ := strings.Cut(rest, " -> ")
		p := filepath.Join(f.real, strings.TrimSpace(name))
		switch kind {
		case "dir":
			must(os.MkdirAll(p, 0o755))
		case "file":
			n, content, _ := strings.Cut(rest, " ")
			p = filepath.Join(f.real, n)
			must(os.MkdirAll(filepath.Dir(p), 0o755))
			must(os.WriteFile(p, []byte(content), 0o644))
		case "link":
			must(os.MkdirAll(filepath.Dir(p), 0o755))
			must(os.Symlink(f.expand(strings.TrimSpace(target)), p))
		case "hardlink":
			must(os.MkdirAll(filepath.Dir(p), 0o755))
			src := f.expand(strings.TrimSpace(target))
			if !filepath.IsAbs(src) {
				src = filepath.Join(f.real, src)
			}
			must(os.Link(src, p))
		case "fifo":
			must(os.MkdirAll(filepath.Dir(p), 0o755))
			must(syscall.Mkfifo(p, 0o644))
		default:
			t.Fatalf("tree: unknown entry %q", line)
		}
	}
	return f
}

func parseOp(s string) (Op, bool) {
	switch s {
	case "read":
		return OpRead, true
	case "write":
		return OpWrite, true
	case "chdir":
		return OpChdir, true
	}
	return 0, false
}

func errKind(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{ErrInvalidPath, "invalid"}, {ErrOutsideWorkspace, "outside"}, {ErrNotDirectory, "notdir"},
		{ErrRootOperation, "root"}, {ErrPathChanged, "changed"}, {ErrNotRegular, "notregular"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

func formatVerdict(pc PathCheck) string {
	var b strings.Builder
	b.WriteString(pc.Decision.String())
	b.WriteString(" ")
	if pc.Rel == "" {
		b.WriteString("-")
	} else {
		b.WriteString(strconv.Quote(pc.Rel))
	}
	if pc.Sensitive {
		b.WriteString(" sensitive")
	}
	if pc.Secret {
		b.WriteString(" secret")
	}
	if pc.Err != nil {
		b.WriteString(" err=" + errKind(pc.Err))
	}
	return b.String()
}

func TestPathGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/paths*/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden path files")
	}
	total := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			g := parseArchive(string(data))
			fx := buildFixture(t, g.sections["tree"])
			var opts []WorkspaceOption
			opts = append(opts, WithHome(fx.base))
			if r := strings.TrimSpace(g.sections["rules"]); r != "" {
				rules, err := ParseAutoApprovePatterns([]byte(r))
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, WithSensitivityRules(rules...))
			}
			wsReal, err := OpenWorkspace(fx.real, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer wsReal.Close()
			wsLink, err := OpenWorkspace(fx.link, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer wsLink.Close()
			if wsLink.Root() != fx.real {
				t.Fatalf("Root() through a symlink = %q, want %q", wsLink.Root(), fx.real)
			}

			var out bytes.Buffer
			for i, line := range strings.Split(strings.TrimRight(g.sections["cases"], "\n"), "\n") {
				trim := strings.TrimSpace(line)
				if trim == "" || strings.HasPrefix(trim, "#") {
					out.WriteString(line + "\n")
					continue
				}
				input, want, ok := cutLast(line, " => ")
				if !ok {
					t.Fatalf("cases line %d: missing \" => \": %q", i+1, line)
				}
				opName, rawPath, _ := strings.Cut(strings.TrimSpace(input), " ")
				if strings.HasPrefix(opName, "swap-") {
					total++
					got := runSwapCase(t, g, opts, opName, rawPath)
					if !*updatePaths && strings.TrimSpace(want) != got {
						t.Errorf("line %d: %s\n got: %s\nwant: %s", i+1, strings.TrimSpace(input), got, strings.TrimSpace(want))
					}
					out.WriteString(strings.TrimRight(input, " ") + " => " + got + "\n")
					continue
				}
				op, ok := parseOp(opName)
				if !ok {
					t.Fatalf("cases line %d: unknown op %q", i+1, opName)
				}
				p := strings.TrimSpace(rawPath)
				if strings.HasPrefix(p, `"`) {
					if p, err = strconv.Unquote(p); err != nil {
						t.Fatalf("cases line %d: %v", i+1, err)
					}
				}
				p = fx.expand(p)
				total++
				got := formatVerdict(wsReal.Check(p, op))
				if gotLink := formatVerdict(wsLink.Check(p, op)); gotLink != got {
					t.Errorf("line %d: %s %q: opened via real root: %s; via symlinked root: %s", i+1, opName, p, got, gotLink)
				}
				if !*updatePaths && strings.TrimSpace(want) != got {
					pc := wsReal.Check(p, op)
					t.Errorf("line %d: %s %q\n got: %s\nwant: %s\nreason: %s", i+1, opName, p, got, strings.TrimSpace(want), pc.Reason)
				}
				out.WriteString(strings.TrimRight(input, " ") + " => " + got + "\n")
			}
			if *updatePaths {
				rebuilt := rebuildArchive(g, "cases", out.String())
				if err := os.WriteFile(file, []byte(rebuilt), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	t.Logf("%d path cases", total)
}

// runSwapCase runs one "swap-OP PATH | NAME -> TARGET" line on a fresh
// fixture, opened through the symlinked root: the check passes, then NAME
// is replaced by a symlink to TARGET, then the operation runs. Whatever the
// verdict, nothing outside the workspace may have changed.
func runSwapCase(t *testing.T, g goldenSections, opts []WorkspaceOption, opName, rest string) string {
	t.Helper()
	pathPart, swapPart, ok := strings.Cut(rest, " | ")
	name, target, ok2 := strings.Cut(swapPart, " -> ")
	if !ok || !ok2 {
		t.Fatalf("swap case %q: want \"PATH | NAME -> TARGET\"", rest)
	}
	fx := buildFixture(t, g.sections["tree"])
	w, err := OpenWorkspace(fx.link, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := fx.expand(strings.TrimSpace(pathPart))
	swapped := false
	w.beforeUse = func(string, string) {
		if swapped {
			return
		}
		swapped = true
		victim := filepath.Join(fx.real, strings.TrimSpace(name))
		if _, err := os.Lstat(victim); err == nil {
			if err := os.Rename(victim, victim+".orig"); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(fx.expand(strings.TrimSpace(target)), victim); err != nil {
			t.Fatal(err)
		}
	}
	var verdict string
	switch opName {
	case "swap-write":
		err = w.WriteFile(p, []byte("new"), 0o644)
		verdict = "written"
	case "swap-read":
		var b []byte
		b, err = w.ReadFile(p)
		verdict = "read " + strconv.Quote(string(b))
	case "swap-remove":
		err = w.Remove(p)
		verdict = "removed"
	default:
		t.Fatalf("unknown op %q", opName)
	}
	if !swapped {
		t.Fatalf("%s %q: the operation was refused before the swap could happen", opName, p)
	}
	ents, _ := os.ReadDir(fx.out)
	if len(ents) != 1 || ents[0].Name() != "secret.txt" || readFile(t, filepath.Join(fx.out, "secret.txt")) != "outside" {
		t.Errorf("%s %q changed the directory outside the workspace", opName, p)
	}
	if err != nil {
		return "refused err=" + errKind(err)
	}
	return verdict
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func rebuildArchive(g goldenSections, name, content string) string {
	var b strings.Builder
	b.WriteString(g.sections[""])
	for _, n := range g.names {
		fmt.Fprintf(&b, "-- %s --\n", n)
		if n == name {
			b.WriteString(content)
		} else {
			b.WriteString(g.sections[n])
		}
	}
	return b.String()
}
