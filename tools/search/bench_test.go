//go:build unix

package search

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherdev/tether/safety"
)

// The benchmarks compare Search, run as search_workspace runs it (through
// a safety.Workspace, opening files relative to directory handles), with
// ripgrep on the same tree, in the same run. Each iteration runs both,
// one after the other (which goes first alternates), so that the ratios
// are measured under the same load even on a shared machine: x-rg is the
// ratio of wall times (tether-ms, rg-ms), x-rg-cpu that of CPU times, user
// and system (tether-cpu-ms, rg-cpu-ms), which other processes' load
// disturbs much less.
//
// Trees: goroot is $(go env GOROOT)/src as installed. repo is a large
// repository with ignore files, made at benchmark time from the module
// cache's github.com modules (hard links into a temporary directory,
// nothing written to the cache), with a root .gitignore added beside the
// modules' own.

// rootGitignore is the repo tree's added .gitignore: fixtures and
// generated code, as a project would list them.
const rootGitignore = "# fixtures and generated code\ntestdata/\n*.pb.go\n*_string.go\n*.golden\n/*/*/*/docs/\n"

var benchRepo struct {
	once sync.Once
	dir  string
	err  error
}

// repoTree returns the repo tree, making it on first use.
func repoTree(b testing.TB) string {
	b.Helper()
	benchRepo.once.Do(func() {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			benchRepo.err = err
			return
		}
		src := filepath.Join(string(trimNL(out)), "github.com")
		if _, err := os.Stat(src); err != nil {
			benchRepo.err = err
			return
		}
		dir, err := os.MkdirTemp("", "tether-search-bench-")
		if err != nil {
			benchRepo.err = err
			return
		}
		benchRepo.dir = dir
		benchRepo.err = linkTree(src, dir)
		if benchRepo.err == nil {
			benchRepo.err = os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(rootGitignore), 0o644)
		}
	})
	if benchRepo.err != nil {
		b.Skip("cannot make the repo tree from the module cache:", benchRepo.err)
	}
	return benchRepo.dir
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// linkTree recreates src's directories under dst (writable) and hard-links
// its regular files; falls back to copying when linking fails.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			if os.Link(p, target) == nil {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, 0o644)
		}
		return nil
	})
}

// TestRipgrepParityRepo does the same on the module cache's github.com
// modules, a large tree with many ignore files of its own, and a root
// .gitignore added.
func TestRipgrepParityRepo(t *testing.T) {
	if testing.Short() {
		t.Skip("searches a copy of the module cache; skipped in -short")
	}
	parity(t, repoTree(t))
}

// cpuTime is the user and system time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRepo.dir != "" {
		os.RemoveAll(benchRepo.dir)
	}
	os.Exit(code)
}

func BenchmarkVsRipgrep(b *testing.B) {
	rg := ripgrep(b)
	trees := []struct {
		name string
		dir  func(*testing.B) string
	}{
		{"goroot", func(b *testing.B) string { return goroot(b) }},
		{"repo", func(b *testing.B) string { return repoTree(b) }},
	}
	for _, tr := range trees {
		b.Run(tr.name, func(b *testing.B) {
			dir := tr.dir(b)
			ws, err := safety.OpenWorkspace(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			fsys := ws.FS()
			for _, q := range rgQueries {
				b.Run(q.name, func(b *testing.B) {
					var ours, theirs, oursCPU, theirsCPU time.Duration
					tether := func() {
						t0, c0 := time.Now(), cpuTime()
						if _, err := Search(context.Background(), fsys, Query{Pattern: q.pattern, Regex: q.regex, Context: 1, OpenDir: ws.Open}); err != nil {
							b.Fatal(err)
						}
						ours += time.Since(t0)
						oursCPU += cpuTime() - c0
					}
					ripgrep := func() {
						t0 := time.Now()
						cmd := exec.Command(rg, rgArgs(q.pattern, q.regex)...)
						cmd.Dir = dir
						if err := cmd.Run(); err != nil {
							if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
								b.Fatal(err)
							}
						}
						theirs += time.Since(t0)
						theirsCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
					}
					i := 0
					for b.Loop() {
						if i%2 == 0 {
							tether()
							ripgrep()
						} else {
							ripgrep()
							tether()
						}
						i++
					}
					n := float64(b.N)
					b.ReportMetric(ours.Seconds()*1e3/n, "tether-ms")
					b.ReportMetric(theirs.Seconds()*1e3/n, "rg-ms")
					b.ReportMetric(ours.Seconds()/theirs.Seconds(), "x-rg")
					b.ReportMetric(oursCPU.Seconds()*1e3/n, "tether-cpu-ms")
					b.ReportMetric(theirsCPU.Seconds()*1e3/n, "rg-cpu-ms")
					b.ReportMetric(oursCPU.Seconds()/theirsCPU.Seconds(), "x-rg-cpu")
				})
			}
		})
	}
}

// BenchmarkSearch measures Search alone (for profiles: -cpuprofile).
func BenchmarkSearch(b *testing.B) {
	for _, tree := range []string{"goroot", "repo"} {
		b.Run(tree, func(b *testing.B) {
			var dir string
			if tree == "goroot" {
				dir = goroot(b)
			} else {
				dir = repoTree(b)
			}
			ws, err := safety.OpenWorkspace(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			for _, q := range rgQueries {
				b.Run(q.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := Search(context.Background(), ws.FS(), Query{Pattern: q.pattern, Regex: q.regex, Context: 1, OpenDir: ws.Open}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkOneLongLine searches a file that is one line of n bytes,
// dense with near-misses for each query: MB/s flat across sizes means the
// cost is linear in the input.
func BenchmarkOneLongLine(b *testing.B) {
	queries := []struct {
		name, pattern string
		regex         bool
		unit          string // repeated to fill the line
	}{
		{"literal-absent", "needle", false, "needl neede "},
		{"literal-dense", "needle", false, "needle "},
		{"regex-guarded-miss", `[0-9]{4}-[0-9]{2}x`, true, "2024-01-02 "},
		{"regex-literal-miss", `needle\d`, true, "needle "},
		{"regex-fold-miss", `(?i)needlex`, true, "NeEdLe "},
		{"regex-no-literal", `[0-9]{3}[a-f]{3}z`, true, "123abc "},
	}
	for _, size := range []int{1 << 20, 4 << 20, 16 << 20} {
		for _, q := range queries {
			b.Run(fmt.Sprintf("%s/%dMiB", q.name, size>>20), func(b *testing.B) {
				line := bytes.Repeat([]byte(q.unit), size/len(q.unit))
				newFinder, err := compile(Query{Pattern: q.pattern, Regex: q.regex})
				if err != nil {
					b.Fatal(err)
				}
				fd := newFinder()
				b.SetBytes(int64(len(line)))
				for b.Loop() {
					fd.reset(line)
					searchBuf(line, fd, Query{MaxPerFile: DefaultMaxPerFile, MaxLineLen: DefaultMaxLineLen, Context: 1})
				}
			})
		}
	}
}
