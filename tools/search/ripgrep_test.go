package search

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The queries compared with ripgrep on $(go env GOROOT)/src.
var rgQueries = []struct {
	name    string
	pattern string
	regex   bool
}{
	{"literal-rare", "ErrUnexpectedEOF", false},
	{"literal-common", "return nil", false},
	{"literal-punct", "if err != nil {", false},
	{"regex-case", "(?i)unmarshaljson", true},
	{"regex-alt", "sync\\.Mutex|sync\\.RWMutex", true},
	{"regex-wild", "func \\(\\w+ \\*\\w+\\) Close\\(", true},
	{"regex-anchored", "^package main$", true},
	{"regex-class", "[0-9]{4}-[0-9]{2}-[0-9]{2}", true},
}

func goroot(t testing.TB) string {
	t.Helper()
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		t.Skip("GOROOT/src not present:", err)
	}
	return src
}

func ripgrep(t testing.TB) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed; apt-get install -y ripgrep to compare with it")
	}
	return rg
}

func rgArgs(pattern string, regex bool) []string {
	// --no-require-git: honour .gitignore outside a git checkout, as Walk does.
	args := []string{"--no-require-git", "--line-number", "--no-heading", "--with-filename", "--color=never", "--no-config"}
	if !regex {
		args = append(args, "--fixed-strings")
	}
	return append(args, "--regexp", pattern)
}

// TestRipgrepParity checks that Search finds exactly the lines ripgrep
// finds, file by file, on the Go source tree.
func TestRipgrepParity(t *testing.T) {
	if testing.Short() {
		t.Skip("searches GOROOT/src; skipped in -short")
	}
	parity(t, goroot(t))
}

func parity(t *testing.T, src string) {
	rg := ripgrep(t)
	for _, q := range rgQueries {
		t.Run(q.name, func(t *testing.T) {
			cmd := exec.Command(rg, rgArgs(q.pattern, q.regex)...)
			cmd.Dir = src
			out, err := cmd.Output()
			if err != nil && len(out) > 0 {
				t.Fatalf("rg: %v", err)
			}
			want := map[string]bool{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				file, rest, _ := strings.Cut(sc.Text(), ":")
				line, _, _ := strings.Cut(rest, ":")
				want[file+":"+line] = true
			}
			res, err := Search(context.Background(), os.DirFS(src), Query{Pattern: q.pattern, Regex: q.regex, MaxPerFile: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			// The tool's way, through directory handles, finds the same.
			viaDirs, err := Search(context.Background(), os.DirFS(src), Query{Pattern: q.pattern, Regex: q.regex, MaxPerFile: 1 << 30,
				OpenDir: func(dir string) (*os.File, error) { return os.Open(filepath.Join(src, dir)) }})
			if err != nil {
				t.Fatal(err)
			}
			if viaDirs.Matches != res.Matches || viaDirs.Searched != res.Searched {
				t.Errorf("through directory handles: %d matches in %d files searched, want %d in %d", viaDirs.Matches, viaDirs.Searched, res.Matches, res.Searched)
			}
			got := map[string]bool{}
			for _, f := range res.Files {
				for _, l := range f.Lines {
					if l.Match {
						got[fmt.Sprintf("%s:%d", f.Path, l.N)] = true
					}
				}
			}
			var missing, extra []string
			for k := range want {
				if !got[k] {
					missing = append(missing, k)
				}
			}
			for k := range got {
				if !want[k] {
					extra = append(extra, k)
				}
			}
			slices.Sort(missing)
			slices.Sort(extra)
			if len(missing)+len(extra) > 0 {
				t.Errorf("%d lines rg found that Search did not (first: %.5q); %d extra (first: %.5q)", len(missing), missing, len(extra), extra)
			}
			if res.Matches != len(want) {
				t.Errorf("Matches = %d, rg found %d", res.Matches, len(want))
			}
			t.Logf("%d matching lines in %d files (%d searched, %d binary skipped)", res.Matches, len(res.Files), res.Searched, res.SkippedBinary)
		})
	}
}
