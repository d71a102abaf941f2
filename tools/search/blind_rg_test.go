package search

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Blind batch: search semantics cases taken from ripgrep's own test suite
// (BurntSushi/ripgrep tests/regression.rs, tests/binary.rs; the issue
// number of each case is in its name) and from ripgrep's guide
// (GUIDE.md: automatic filtering, binary data, case sensitivity). The
// expected hits were written from those sources before Search was run
// on them; each is what ripgrep prints when run with --no-require-git (the
// tool honours ignore files outside a git checkout too) and, for the
// case-insensitive ones, with -i written as (?i). Cases about options the
// tool does not have (--files, -o, --replace, -U, --pcre2) are left out.

// sherlockNUL builds a text like ripgrep's tests/data/sherlock-nul.txt:
// numbered lines of prose, line 1 a title, a phrase on a line past the
// first 64 KiB, and a NUL byte at nulAt (or none when nulAt < 0).
func sherlockNUL(nulAt int, phraseLine int) string {
	var b strings.Builder
	b.WriteString("The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n")
	for n := 2; b.Len() < 90_000 || (nulAt >= 0 && b.Len() <= nulAt); n++ {
		if n == phraseLine {
			b.WriteString("\"And yet you say he is not a medical student?\"\n")
			continue
		}
		fmt.Fprintf(&b, "line %05d of a long story told in plain words.\n", n)
	}
	s := b.String()
	if nulAt >= 0 {
		s = s[:nulAt] + "\x00" + s[nulAt+1:]
	}
	return s
}

type blindCase struct {
	name   string
	files  map[string]string
	query  string
	regex  bool
	dir    string
	hidden bool
	want   []string // "path:line", sorted
	// newer: ripgrep 13 (Debian's) still has the bug the case was written
	// for; the expectation is what later ripgrep releases and git do.
	newer bool
}

func blindRgCases() []blindCase {
	// Line 1400 is past the first 64 KiB (49-byte lines after a 74-byte title).
	const phraseLine = 1400
	return []blindCase{
		// Ignore files (tests/regression.rs).
		{name: "r16 dir pattern at any depth", files: map[string]string{".gitignore": "ghi/", "ghi/toplevel.txt": "xyz", "def/ghi/subdir.txt": "xyz"}, query: "xyz"},
		{name: "r25 anchored dir pattern", files: map[string]string{".gitignore": "/llvm/", "src/llvm/foo": "test"}, query: "test", want: []string{"src/llvm/foo:1"}},
		{name: "r25 anchored dir pattern below root", files: map[string]string{".gitignore": "/llvm/", "src/llvm/foo": "test"}, query: "test", dir: "src", want: []string{"src/llvm/foo:1"}},
		{name: "r30 re-include inside dir/**", files: map[string]string{".gitignore": "vendor/**\n!vendor/manifest", "vendor/manifest": "test", "vendor/other": "test"}, query: "test", want: []string{"vendor/manifest:1"}},
		{name: "r49 pattern with slash is anchored", files: map[string]string{".gitignore": "foo/bar", "test/foo/bar/baz": "test"}, query: "test", want: []string{"test/foo/bar/baz:1"}},
		{name: "r50 middle slash anchors", files: map[string]string{".gitignore": "XXX/YYY/", "abc/def/XXX/YYY/bar": "test", "XXX/YYY/bar": "test"}, query: "test", want: []string{"abc/def/XXX/YYY/bar:1"}},
		{name: "r65 dir ignored", files: map[string]string{".gitignore": "a/", "a/foo": "xyz", "a/bar": "xyz"}, query: "xyz"},
		{name: "r67 ignore all but one", files: map[string]string{".gitignore": "/*\n!/dir", "foo/bar": "test", "dir/bar": "test"}, query: "test", want: []string{"dir/bar:1"}},
		{name: "r87 odd pattern beside a plain one", files: map[string]string{".gitignore": "foo\n**no-vcs**", "foo": "test"}, query: "test"},
		{name: "r90 whitelisted hidden file", files: map[string]string{".gitignore": "!.foo", ".foo": "test"}, query: "test", want: []string{".foo:1"}},
		{name: "r127 file pattern with dir", files: map[string]string{".gitignore": "foo/sherlock\n", "foo/sherlock": "Sherlock\n", "foo/watson": "Sherlock\n"}, query: "Sherlock", want: []string{"foo/watson:1"}},
		{name: "r131 non-ASCII name", files: map[string]string{".gitignore": "TopÑapa", "TopÑapa": "test"}, query: "test"},
		{name: "r184 dot-star hides only hidden", files: map[string]string{".gitignore": ".*", "foo/bar/baz": "test"}, query: "test", want: []string{"foo/bar/baz:1"}},
		{name: "r184 dot-star from a subdir", files: map[string]string{".gitignore": ".*", "foo/bar/baz": "test"}, query: "test", dir: "foo/bar", want: []string{"foo/bar/baz:1"}},
		{name: "r807 hidden dir pattern", files: map[string]string{".gitignore": ".a/b", ".a/b/file": "test", ".a/c/file": "test"}, query: "test", hidden: true, want: []string{".a/c/file:1"}},
		{name: "r1098 double star inside a name", files: map[string]string{".gitignore": "a**b", "afoob": "test"}, query: "test"},
		{name: "r1173 double star alone", files: map[string]string{".gitignore": "**", "foo": "test"}, query: "test"},
		{name: "r1174 double stars then star", files: map[string]string{".gitignore": "**/**/*", "a/foo": "test"}, query: "test"},
		{name: "r2198 .rgignore", files: map[string]string{".ignore": "a", ".rgignore": "b", "a": "x", "b": "x", "c": "x"}, query: "x", want: []string{"c:1"}},
		{name: "r2236 escaped slash", files: map[string]string{".ignore": `foo\/`, "foo/bar": "test\n"}, query: "test", newer: true},
		{name: "r2770 double star dir star", files: map[string]string{".gitignore": "**/bar/*", "foo/bar/baz": "quux"}, query: "quux"},
		{name: "r2770 from a subdir", files: map[string]string{".gitignore": "**/bar/*", "foo/bar/baz": "quux"}, query: "quux", dir: "foo"},
		{name: "r3067 anchored two-part pattern", files: map[string]string{".gitignore": "foobar/debug", "foobar/some/debug/flag": "baz", "foobar/debug/flag2": "baz"}, query: "baz", want: []string{"foobar/some/debug/flag:1"}},
		{name: "r829 anchored pattern from a subdir", files: map[string]string{".ignore": "/a/b", "a/b/test.txt": "Sample text"}, query: "Sample", dir: "a", newer: true},
		{name: "r2731 re-included nested dir", files: map[string]string{".ignore": "build/\n!/some_dir/build/", "some_dir/build/foo": "string"}, query: "string", dir: "some_dir/build", want: []string{"some_dir/build/foo:1"}, newer: true},
		{name: "r2747 anchored star segment", files: map[string]string{".ignore": "/a/*/b", "a/c/b/foo": "x", "a/src/f/b/foo": "x"}, query: "x", want: []string{"a/src/f/b/foo:1"}, newer: true},
		{name: "r2778 anchored glob from a subdir", files: map[string]string{".ignore": "/parent/*.txt", "parent/ignore-me.txt": "x", "parent/subdir/dont-ignore-me.txt": "x"}, query: "x", dir: "parent", want: []string{"parent/subdir/dont-ignore-me.txt:1"}, newer: true},
		{name: "r2836 anchored deep dir from a subdir", files: map[string]string{".ignore": "/testdir/sub/sub2/\n", "testdir/sub/sub2/testfile": "needle"}, query: "needle", dir: "testdir", newer: true},
		{name: "f1757 ignored dir inside the searched dir", files: map[string]string{".ignore": "rust/target", "rust/source.rs": "needle", "rust/target/rustdoc-output.html": "needle"}, query: "needle", dir: "rust", want: []string{"rust/source.rs:1"}, newer: true},
		{name: "hidden skipped by default", files: map[string]string{".env.example": "x", ".config/a": "x", "b": "x"}, query: "x", want: []string{"b:1"}},

		// Regular expressions and lines.
		{name: "r93 repeated group", files: map[string]string{"foo": "192.168.1.1"}, query: `(\d{1,3}\.){3}\d{1,3}`, regex: true, want: []string{"foo:1"}},
		{name: "r128 vertical tab is not a line break", files: map[string]string{"foo": "01234567\x0b\n\x0b\n\x0b\n\x0b\nx"}, query: "x", want: []string{"foo:5"}},
		{name: "r156 classes and alternations", files: map[string]string{"t.txt": "#parse('widgets/foo_bar_macros.vm')\n#include (\"widgets/mobile/foo-bar-resetpw.vm\")\n#nothing\n"},
			query: `#(?:parse|include)\s*\(\s*(?:"|')[./A-Za-z_-]+(?:"|')`, regex: true, want: []string{"t.txt:1", "t.txt:2"}},
		{name: "r229 class keeps case", files: map[string]string{"foo": "economie"}, query: "[E]conomie", regex: true},
		{name: "r251 unicode case folding", files: map[string]string{"foo": "привет\nПривет\nПрИвЕт"}, query: "(?i)привет", regex: true, want: []string{"foo:1", "foo:2", "foo:3"}},
		{name: "r599 empty lines", files: map[string]string{"input.txt": "\n\ntest\n"}, query: "^$", regex: true, want: []string{"input.txt:1", "input.txt:2"}},
		{name: "r1064 capture with star", files: map[string]string{"input": "abc"}, query: "a(.*c)", regex: true, want: []string{"input:1"}},
		{name: "r1163 BOM before the first line", files: map[string]string{"bom.txt": "\uFEFFtest123\ntest123"}, query: "^test123", regex: true, want: []string{"bom.txt:1", "bom.txt:2"}},
		{name: "r1203 reverse suffix literal", files: map[string]string{"test": "153.230000\n"}, query: `\d\d\d00`, regex: true, want: []string{"test:1"}},
		{name: "r1203 reverse suffix literal longer", files: map[string]string{"test": "153.230000\n"}, query: `\d\d\d000`, regex: true, want: []string{"test:1"}},
		{name: "r1319 class repeat after literal", files: map[string]string{"input": "CCAGCTACTCGGGAGGCTGAGGCTGGAGGATCGCTTGAGTCCAGGAGTTC"}, query: "TTGAGTCCAGGAG[ATCG]{2}C", regex: true, want: []string{"input:1"}},
		{name: "r1537 group repeat once", files: map[string]string{"foo": "abc;de,fg"}, query: ";(.*,){1}", regex: true, want: []string{"foo:1"}},
		{name: "r1559 space plus", files: map[string]string{"foo": "type A struct {\n\tTaskID int `json:\"taskID\"`\n}\n\ntype B struct {\n\tObjectID string `json:\"objectID\"`\n\tTaskID   int    `json:\"taskID\"`\n}\n"},
			query: "TaskID +int", regex: true, want: []string{"foo:2", "foo:7"}},
		{name: "r1765 optional on a blank line", files: map[string]string{"test": "\n"}, query: "x?", regex: true, want: []string{"test:1"}},
		{name: "unicode word class", files: map[string]string{"w.txt": "café\ncafe\ncaf!\n"}, query: `caf\w`, regex: true, want: []string{"w.txt:1", "w.txt:2"}},
		{name: "unicode digit class", files: map[string]string{"d.txt": "٣ items\n3 items\nno items\n"}, query: `\d items`, regex: true, want: []string{"d.txt:1", "d.txt:2"}},
		{name: "CRLF dollar does not match before CR", files: map[string]string{"c.txt": "end\r\nstart\r\n"}, query: "end$", regex: true},
		{name: "CRLF literal on the second line", files: map[string]string{"c.txt": "end\r\nstart\r\n"}, query: "start", want: []string{"c.txt:2"}},
		{name: "long line past the first buffer", files: map[string]string{"l.txt": strings.Repeat("a", 200_000) + "needle" + strings.Repeat("b", 100) + "\nnext needle\n"}, query: "needle", want: []string{"l.txt:1", "l.txt:2"}},
		{name: "last line without newline", files: map[string]string{"n.txt": "one\ntwo needle"}, query: "needle", want: []string{"n.txt:2"}},

		// Binary data (tests/binary.rs; GUIDE.md "Binary data").
		{name: "NUL in the first buffer skips the file", files: map[string]string{"bin": "needle\x00\x01\x02\n", "txt": "needle\n"}, query: "needle", want: []string{"txt:1"}},
		{name: "after_match1_implicit", files: map[string]string{"hay": sherlockNUL(77041, phraseLine)}, query: "Project Gutenberg EBook", want: []string{"hay:1"}},
		{name: "after_match2_implicit", files: map[string]string{"hay": sherlockNUL(77041, phraseLine)}, query: "Project Gutenberg EBook|a medical student", regex: true, want: []string{"hay:1"}},
		{name: "before_match2_implicit", files: map[string]string{"hay": sherlockNUL(77041, phraseLine)}, query: "a medical student"},
		{name: "before_match1_implicit", files: map[string]string{"hay": sherlockNUL(77041, phraseLine)}, query: "line 01700"},
		{name: "match in the second buffer, NUL in the third", files: map[string]string{"hay": sherlockNUL(150_000, phraseLine)}, query: "a medical student", want: []string{fmt.Sprintf("hay:%d", phraseLine)}},
		{name: "after_match1_implicit_text control: no NUL", files: map[string]string{"hay": sherlockNUL(-1, phraseLine)}, query: "a medical student", want: []string{fmt.Sprintf("hay:%d", phraseLine)}},
	}
}

func runBlindCase(t *testing.T, c blindCase) []string {
	t.Helper()
	root := tree(t, c.files)
	res, err := Search(context.Background(), os.DirFS(root), Query{
		Pattern: c.query, Regex: c.regex, Dir: c.dir, MaxPerFile: 1 << 30,
		Walk: WalkOptions{Hidden: c.hidden},
	})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	got := []string{}
	for _, f := range res.Files {
		for _, l := range f.Lines {
			if l.Match {
				got = append(got, fmt.Sprintf("%s:%d", f.Path, l.N))
			}
		}
	}
	slices.Sort(got)
	return got
}

func TestBlindRipgrepSemantics(t *testing.T) {
	pass, total := 0, 0
	for _, c := range blindRgCases() {
		total++
		ok := t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == nil {
				want = []string{}
			}
			got := runBlindCase(t, c)
			if !slices.Equal(got, want) {
				t.Errorf("query %q: got %q, want %q", c.query, got, want)
			}
		})
		if ok {
			pass++
		}
	}
	t.Logf("blind ripgrep semantics: %d/%d", pass, total)
}

// TestBlindCasesAgreeWithRipgrep checks the written expectations against
// the installed ripgrep itself, so that a case cannot encode a wrong idea
// of what ripgrep does.
func TestBlindCasesAgreeWithRipgrep(t *testing.T) {
	rg := ripgrep(t)
	for _, c := range blindRgCases() {
		t.Run(c.name, func(t *testing.T) {
			root := tree(t, c.files)
			args := rgArgs(c.query, c.regex)
			if c.hidden {
				args = append(args, "--hidden")
			}
			if c.dir != "" {
				args = append(args, c.dir)
			}
			if c.newer {
				t.Skip("ripgrep 13 predates the fix this case was written for")
			}
			cmd := exec.Command(rg, args...)
			cmd.Dir = root
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			// Exit 1: no match; 2 with this message: every file was filtered out.
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) &&
				!strings.Contains(stderr.String(), "No files were searched") {
				t.Fatalf("rg: %v: %s", err, stderr.String())
			}
			got := []string{}
			for _, line := range strings.Split(string(out), "\n") {
				file, rest, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				n, _, _ := strings.Cut(rest, ":")
				if _, err := strconv.Atoi(n); err != nil {
					continue // "hay: WARNING: stopped searching binary file after match"
				}
				got = append(got, file+":"+n)
			}
			slices.Sort(got)
			want := c.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("ripgrep %q: got %q, the case expects %q", c.query, got, want)
			}
		})
	}
}
