package sqlitestore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/safety"
)

// The reliability test: a helper process (this test binary, re-executed
// with crashHelperEnv set) writes, removes, renames and undoes files
// through checkpoints in a loop; the parent kills it with SIGKILL at a
// random moment, then checks that every file holds a complete version,
// that the store opens, and that undoing every checkpoint newest-first
// restores the original workspace without a single conflict.

const (
	crashHelperEnv = "TETHER_CHECKPOINT_CRASH_HELPER"
	crashReady     = "crash-helper-ready"
)

var crashFiles = []string{"a.txt", "b.txt", "src/c.go", "src/d.go", "e.md"}

// crashContent is version v of a file: a header naming it, then enough
// deterministic filler that a write takes long enough to be interrupted.
// A torn write cannot pass checkCrashContent.
func crashContent(name string, v int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "file %s version %d\n", name, v)
	line := fmt.Sprintf("%s/%d filler line for a large file that takes a while to write\n", name, v)
	for b.Len() < 96<<10 {
		b.WriteString(line)
	}
	return b.Bytes()
}

func checkCrashContent(data []byte) error {
	var name string
	var v int
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if _, err := fmt.Sscanf(string(first), "file %s version %d", &name, &v); err != nil {
		return fmt.Errorf("no header (%v): %.60q", err, data)
	}
	if !bytes.Equal(data, crashContent(name, v)) {
		return fmt.Errorf("torn content for %s version %d (%d bytes)", name, v, len(data))
	}
	return nil
}

// slowFiles pauses before each mutation, as a slow disk would, so that
// kills often land between the store's record and the file operation:
// the window crash recovery exists for.
type slowFiles struct{ checkpoint.Files }

func (f slowFiles) WriteFile(name string, data []byte, perm fs.FileMode) error {
	time.Sleep(2 * time.Millisecond)
	return f.Files.WriteFile(name, data, perm)
}

func (f slowFiles) Remove(name string) error {
	time.Sleep(2 * time.Millisecond)
	return f.Files.Remove(name)
}

func (f slowFiles) Rename(o, n string) error {
	time.Sleep(2 * time.Millisecond)
	return f.Files.Rename(o, n)
}

func crashHelperFiles(t *testing.T, ws string) checkpoint.Files {
	w, err := safety.OpenWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestCrashHelper is the helper process; it does nothing in a normal run.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashHelperEnv)
	if dir == "" {
		t.Skip("helper process for TestKillDuringWrites")
	}
	ctx := context.Background()
	store, err := Open(ctx, filepath.Join(dir, "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.New(slowFiles{crashHelperFiles(t, filepath.Join(dir, "ws"))}, store)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(crashReady) // the parent's kill timer starts now
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	deadline := time.Now().Add(20 * time.Second) // never outlive a dead parent for long
	version := int(time.Now().UnixNano() % 1e6 * 1000)
	for turn := 0; time.Now().Before(deadline); turn++ {
		c, err := m.Begin(ctx, "crash", fmt.Sprint("turn ", turn))
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			name := crashFiles[rng.IntN(len(crashFiles))]
			version++
			call := checkpoint.Call{ID: fmt.Sprint("call_", version), Tool: "write_file"}
			switch rng.IntN(6) {
			case 0:
				c.Remove(ctx, call, name) // may not exist: an error is fine
			case 1:
				c.Rename(ctx, call, name, "moved/"+filepath.Base(name))
			case 2:
				c.WriteFile(ctx, call, "new/"+fmt.Sprint(version%3)+".txt", crashContent("new", version), 0)
			default:
				if err := c.WriteFile(ctx, call, name, crashContent(name, version), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		if rng.IntN(4) == 0 {
			c.Undo(ctx, checkpoint.UndoOptions{})
		}
	}
}

func TestKillDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const runs = 20
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for run := range runs {
		dir := t.TempDir()
		ws := filepath.Join(dir, "ws")
		initial := map[string]string{}
		for _, name := range crashFiles {
			p := filepath.Join(ws, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			data := crashContent(name, 0)
			os.WriteFile(p, data, 0o644)
			initial[name] = string(data)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
		var out bytes.Buffer
		pr, pw := io.Pipe()
		cmd.Stdout, cmd.Stderr = pw, pw
		ready := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				out.WriteString(sc.Text() + "\n")
				if sc.Text() == crashReady {
					close(ready)
				}
			}
		}()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("run %d: helper never became ready", run)
		}
		// Anywhere in the first few hundred milliseconds of work.
		time.Sleep(time.Duration(rng.Int64N(int64(300 * time.Millisecond))))
		cmd.Process.Kill() // SIGKILL
		err := cmd.Wait()
		pw.Close()
		<-done
		if cmd.ProcessState.Success() {
			t.Fatalf("run %d: helper exited before the kill: %v\n%s", run, err, out.String())
		}
		verifyAfterCrash(t, fmt.Sprintf("run %d", run), dir, initial)
	}
}

func verifyAfterCrash(t *testing.T, run string, dir string, initial map[string]string) {
	t.Helper()
	ctx := context.Background()
	ws := filepath.Join(dir, "ws")
	temps := 0
	walk := func() map[string]string {
		got := map[string]string{}
		filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if isTemp(p) {
				temps++ // an interrupted atomic write leaves its temp file, never a torn target
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(ws, p)
			if err := checkCrashContent(data); err != nil {
				t.Errorf("%s: %s: %v", run, rel, err)
			}
			got[filepath.ToSlash(rel)] = string(data)
			return nil
		})
		return got
	}
	walk()
	leftover := temps

	store, err := Open(ctx, filepath.Join(dir, "cp.db"))
	if err != nil {
		t.Fatalf("%s: store does not open after kill: %v", run, err)
	}
	defer store.Close()
	m, _ := checkpoint.New(workspaceFiles(t, ws), store)
	list, err := m.List(ctx, "crash")
	if err != nil {
		t.Fatalf("%s: %v", run, err)
	}
	for _, info := range slices.Backward(list) {
		c, err := m.Open(ctx, info.ID)
		if err != nil {
			t.Fatalf("%s: open %s: %v", run, info.ID, err)
		}
		if _, err := c.Undo(ctx, checkpoint.UndoOptions{}); err != nil {
			t.Errorf("%s: undo %s (%s): %v", run, info.ID, info.Label, err)
		}
	}
	got := walk()
	if len(got) != len(initial) {
		var names []string
		for k := range got {
			names = append(names, k)
		}
		slices.Sort(names)
		t.Errorf("%s: after undoing %d checkpoints the workspace has %s", run, len(list), strings.Join(names, ", "))
	}
	for name, want := range initial {
		if got[name] != want {
			t.Errorf("%s: %s not restored (%.40q)", run, name, got[name])
		}
	}
	t.Logf("%s: killed after %d checkpoints; %d leftover temp files", run, len(list), leftover)
}

// TestUndoAfterRestart writes through one store instance, closes it, and
// undoes through a new store and manager, as a new process would.
func TestUndoAfterRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "cp.db")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)

	s1, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	m1, _ := checkpoint.New(workspaceFiles(t, dir), s1)
	c, _ := m1.Begin(ctx, "sess", "run 1")
	c.WriteFile(ctx, call1, "a.txt", []byte("A\n"), 0)
	c.WriteFile(ctx, call1, "b/new.txt", []byte("new\n"), 0)
	c.Rename(ctx, call1, "a.txt", "c.txt")
	id := c.ID()
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}

	s2, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	m2, _ := checkpoint.New(workspaceFiles(t, dir), s2)
	list, err := m2.List(ctx, "sess")
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].Label != "run 1" {
		t.Fatalf("List after restart = %+v, %v", list, err)
	}
	c2, err := m2.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c2.Diff(ctx)
	if err != nil || len(d.Files) != 2 {
		t.Errorf("Diff after restart = %+v, %v", d.Files, err)
	}
	if _, err := c2.Undo(ctx, checkpoint.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	mustEqualTree(t, tree(t, dir), map[string]string{"a.txt": "a\n"})
	if _, err := m2.Open(ctx, "cp_missing"); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Errorf("Open(unknown) = %v, want ErrNotFound", err)
	}
}
