package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// makeWorkspace creates n source-like files of about 1 KiB in 100 dirs.
func makeWorkspace(b *testing.B, dir string, n int) {
	b.Helper()
	old := time.Now().Add(-time.Hour)
	body := make([]byte, 0, 1100)
	for i := range 20 {
		body = fmt.Appendf(body, "func f%d(x int) int { return x*%d + %d } // filler\n", i, i, i)
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%100), fmt.Sprintf("file%05d.go", i))
		if i < 100 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			b.Fatal(err)
		}
		// An old mtime keeps git's racy-clean check from re-hashing every
		// file on each add: the steady state of a real repository.
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
}

func git(b *testing.B, gitDir, work string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir, "--work-tree=" + work,
		"-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+filepath.Dir(gitDir))
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// BenchmarkCheckpoint10k compares, on one 10,000-file workspace in one run,
// a Tether checkpoint (Begin, write of one file with its snapshot, Undo)
// with the shadow-git checkpoint Cline and Gemini CLI take (the same
// write, then git add -A && git commit with a separate git dir). The
// shadow-git figure does not even include restoring the file.
func BenchmarkCheckpoint10k(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	ctx := context.Background()
	ws := benchDir(b)
	makeWorkspace(b, ws, 10_000)
	target := filepath.Join("pkg42", "file00042.go")
	edited := []byte("package pkg42\n\nfunc edited() {}\n")

	run := func(b *testing.B, store Store) {
		defer store.Close()
		m, err := New(newRootFiles(b, ws), store)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			c, err := m.Begin(ctx, "bench", "")
			if err != nil {
				b.Fatal(err)
			}
			if err := c.WriteFile(ctx, call1, target, edited, 0); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("tether-memory", func(b *testing.B) { run(b, NewMemoryStore()) })
	edits := 0 // shared by all shadow runs so that every commit has something to commit
	shadow := func(b *testing.B, config ...string) {
		gitDir := filepath.Join(benchDir(b), "shadow.git")
		git(b, gitDir, ws, "init", "-q")
		for i := 0; i+1 < len(config); i += 2 {
			git(b, gitDir, ws, "config", config[i], config[i+1])
		}
		git(b, gitDir, ws, "add", "-A")
		git(b, gitDir, ws, "commit", "-q", "-m", "base")
		files := newRootFiles(b, ws)
		b.ReportAllocs()
		for b.Loop() {
			// The same atomic, fsynced write the tether variants make, with
			// content that differs from every earlier iteration.
			edits++
			if err := files.WriteFile(target, fmt.Appendf(nil, "%s// %d\n", edited, edits), 0o644); err != nil {
				b.Fatal(err)
			}
			git(b, gitDir, ws, "add", "-A")
			git(b, gitDir, ws, "commit", "-q", "-m", "checkpoint")
		}
	}
	// git's defaults do not fsync loose objects; the second variant makes
	// git as durable as the atomic, fsynced writes Tether does.
	b.Run("shadow-git", func(b *testing.B) { shadow(b) })
	b.Run("shadow-git-fsync", func(b *testing.B) { shadow(b, "core.fsync", "all", "core.fsyncMethod", "fsync") })
}

// benchDir is a fresh directory under $TETHER_BENCH_DIR (e.g. /dev/shm,
// to measure without the disk's fsync latency), or b.TempDir().
func benchDir(b *testing.B) string {
	base := os.Getenv("TETHER_BENCH_DIR")
	if base == "" {
		return b.TempDir()
	}
	dir, err := os.MkdirTemp(base, "tether-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// BenchmarkWriteFile measures one snapshotted write of a 4 KiB file.
func BenchmarkWriteFile(b *testing.B) {
	ctx := context.Background()
	ws := b.TempDir()
	data := make([]byte, 4096)
	for name, open := range map[string]func() Store{
		"memory": func() Store { return NewMemoryStore() },
	} {
		b.Run(name, func(b *testing.B) {
			store := open()
			defer store.Close()
			m, _ := New(newRootFiles(b, ws), store)
			c, _ := m.Begin(ctx, "bench", "")
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				data[0] = byte(i)
				if err := c.WriteFile(ctx, call1, "f.txt", data, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
