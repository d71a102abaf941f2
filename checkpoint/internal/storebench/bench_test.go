package storebench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/pgstore"
	"github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/internal/pgtest"
	"github.com/tetherdev/tether/safety"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// BenchmarkCheckpoint10k: one agent edit made undoable, per store. The
// Tether variants do Begin, a snapshotted atomic write of one file and
// Undo (the write restored, also fsynced). The shadow-git variants do the
// same write and one git checkpoint, without even restoring the file.
func BenchmarkCheckpoint10k(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed: apt-get install -y git")
	}
	ctx := context.Background()
	ws := benchDir(b)
	makeWorkspace(b, ws, 10_000)
	target := filepath.Join("pkg42", "file00042.go")
	edited := []byte("package pkg42\n\nfunc edited() {}\n")
	files, err := safety.OpenWorkspace(ws)
	if err != nil {
		b.Fatal(err)
	}
	defer files.Close()
	call := checkpoint.Call{ID: "c", Tool: "write_file"}

	tether := func(b *testing.B, open func(b *testing.B) checkpoint.Store) {
		store := open(b)
		defer store.Close()
		m, err := checkpoint.New(files, store)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			c, err := m.Begin(ctx, "bench", "")
			if err != nil {
				b.Fatal(err)
			}
			if err := c.WriteFile(ctx, call, target, edited, 0); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Undo(ctx, checkpoint.UndoOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("tether-memory", func(b *testing.B) {
		tether(b, func(*testing.B) checkpoint.Store { return checkpoint.NewMemoryStore() })
	})
	b.Run("tether-sqlite", func(b *testing.B) {
		tether(b, func(b *testing.B) checkpoint.Store {
			s, err := sqlitestore.Open(ctx, filepath.Join(b.TempDir(), "cp.db"))
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
	b.Run("tether-postgres", func(b *testing.B) {
		tether(b, func(b *testing.B) checkpoint.Store {
			s, err := pgstore.Open(ctx, pgtest.Database(b))
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
	edits := 0 // shared by all shadow runs so that every commit has something to commit
	shadow := func(b *testing.B, config ...string) {
		gitDir := filepath.Join(benchDir(b), "shadow.git")
		git(b, gitDir, ws, "init", "-q")
		for i := 0; i+1 < len(config); i += 2 {
			git(b, gitDir, ws, "config", config[i], config[i+1])
		}
		git(b, gitDir, ws, "add", "-A")
		git(b, gitDir, ws, "commit", "-q", "-m", "base")
		b.ReportAllocs()
		for b.Loop() {
			// The same atomic, fsynced write the Tether variants make, with
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

// benchDir is a fresh directory under $TETHER_BENCH_DIR, or b.TempDir().
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
