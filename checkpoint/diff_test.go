package checkpoint

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// numbered returns n lines "line 1\n" … "line n\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func replaceLine(s string, i int, with string) string {
	return strings.Replace(s, fmt.Sprintf("line %d\n", i), with, 1)
}

func TestDiff(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, open func(t *testing.T) Store) {
		e := newEnv(t, open(t), map[string]string{
			"main.go": numbered(12), "old.txt": "gone\n", "mv.txt": "moved\n", "img.png": "\x89PNG\x00\x01",
		})
		c := e.begin()
		edit := Call{ID: "call_1", Tool: "edit_file"}
		create := Call{ID: "call_2", Tool: "write_file"}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(c.WriteFile(ctx, edit, "main.go", []byte(replaceLine(numbered(12), 2, "LINE 2\n")), 0))
		must(c.WriteFile(ctx, edit, "main.go", []byte(replaceLine(replaceLine(numbered(12), 2, "LINE 2\n"), 11, "LINE 11\nextra\n")), 0))
		must(c.WriteFile(ctx, create, "pkg/new.go", []byte("package pkg\n"), 0))
		must(c.Remove(ctx, create, "old.txt"))
		must(c.Rename(ctx, create, "mv.txt", "moved/mv.txt"))
		must(c.WriteFile(ctx, create, "img.png", []byte("\x89PNG\x00\x02"), 0))
		d, err := c.Diff(ctx)
		must(err)
		var summary strings.Builder
		for _, f := range d.Files {
			fmt.Fprintf(&summary, "%s %s old=%q +%d -%d binary=%v\n", f.Kind, f.Path, f.OldPath, f.Added, f.Removed, f.Binary)
		}
		fmt.Fprintf(&summary, "total +%d -%d\n\n", d.Added, d.Removed)
		golden(t, "diff.golden", summary.String()+d.String())

		calls, err := c.Calls(ctx)
		must(err)
		if len(calls) != 2 {
			t.Fatalf("Calls = %+v", calls)
		}
		// edit_file: 2 writes, +1 -1 then +2 -1 relative to the first write.
		if g := calls[0]; g.Call != edit || g.Added != 3 || g.Removed != 2 || len(g.Paths) != 1 {
			t.Errorf("edit_file stats = %+v, want +3 -2 on main.go", g)
		}
		if g := calls[1]; g.Call != create || g.Added != 1 || g.Removed != 1 || len(g.Paths) != 4 {
			t.Errorf("write_file stats = %+v, want +1 -1 over 4 files", g)
		}
		fd, err := c.DiffFile(ctx, "main.go")
		if err != nil || fd.Added != 3 || fd.Removed != 2 {
			t.Errorf("DiffFile = %+v, %v", fd, err)
		}
	})
}

func TestHunks(t *testing.T) {
	ctx := context.Background()
	base := numbered(40)
	// Lines 3 and 5 are close (one hunk); line 30 is far (its own hunk).
	agent := replaceLine(replaceLine(replaceLine(base, 3, "THREE\n"), 5, "FIVE\nFIVE-B\n"), 30, "")
	tests := []struct {
		name   string
		op     func(c *Checkpoint, hunks []Hunk) error
		file   string // expected file content after op
		remain int    // hunks left in the diff
	}{
		{"reject near", func(c *Checkpoint, h []Hunk) error { return c.RejectHunk(ctx, "f.txt", h[0].ID, UndoOptions{}) },
			replaceLine(base, 30, ""), 1},
		{"reject far", func(c *Checkpoint, h []Hunk) error { return c.RejectHunk(ctx, "f.txt", h[1].ID, UndoOptions{}) },
			replaceLine(replaceLine(base, 3, "THREE\n"), 5, "FIVE\nFIVE-B\n"), 1},
		{"accept near", func(c *Checkpoint, h []Hunk) error { return c.AcceptHunk(ctx, "f.txt", h[0].ID) },
			agent, 1},
		{"reject both", func(c *Checkpoint, h []Hunk) error {
			if err := c.RejectHunk(ctx, "f.txt", h[0].ID, UndoOptions{}); err != nil {
				return err
			}
			h2, err := c.Hunks(ctx, "f.txt")
			if err != nil {
				return err
			}
			return c.RejectHunk(ctx, "f.txt", h2[0].ID, UndoOptions{})
		}, base, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, NewMemoryStore(), map[string]string{"f.txt": base})
			c := e.begin()
			if err := c.WriteFile(ctx, call1, "f.txt", []byte(agent), 0); err != nil {
				t.Fatal(err)
			}
			hunks, err := c.Hunks(ctx, "f.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(hunks) != 2 {
				t.Fatalf("got %d hunks, want 2 (adjacent changes merged, distant separate)", len(hunks))
			}
			if h := hunks[0]; h.Added != 3 || h.Removed != 2 || h.OldStart != 1 || h.NewStart != 1 {
				t.Errorf("hunk 0 = %+v", h)
			}
			if h := hunks[1]; h.Added != 0 || h.Removed != 1 || h.OldStart != 27 || h.NewStart != 28 {
				t.Errorf("hunk 1 = %+v", h)
			}
			if err := tc.op(c, hunks); err != nil {
				t.Fatal(err)
			}
			if got := e.tree()["f.txt"]; got != tc.file {
				t.Errorf("file after op:\n%s\nwant:\n%s", got, tc.file)
			}
			left, err := c.Hunks(ctx, "f.txt")
			if err != nil && tc.remain > 0 {
				t.Fatal(err)
			}
			if len(left) != tc.remain {
				t.Errorf("%d hunks left, want %d", len(left), tc.remain)
			}
			// Undo still returns to the baseline: the original, or the
			// original plus accepted hunks.
			if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
				t.Fatal(err)
			}
			want := base
			if tc.name == "accept near" {
				want = replaceLine(replaceLine(base, 3, "THREE\n"), 5, "FIVE\nFIVE-B\n")
			}
			if got := e.tree()["f.txt"]; got != want {
				t.Errorf("after undo:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestHunkRendering(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, NewMemoryStore(), map[string]string{"f.txt": numbered(40)})
	c := e.begin()
	agent := replaceLine(replaceLine(numbered(40), 3, "THREE\n"), 30, "")
	c.WriteFile(ctx, call1, "f.txt", []byte(agent+"no newline"), 0)
	c.WriteFile(ctx, call1, "new.txt", []byte("a\nb\n"), 0)
	hunks, err := c.Hunks(ctx, "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	added, _ := c.Hunks(ctx, "new.txt")
	var b strings.Builder
	for _, h := range append(hunks, added...) {
		b.WriteString(h.Unified)
	}
	golden(t, "hunks.golden", b.String())
}

func TestHunkErrors(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, NewMemoryStore(), map[string]string{"f.txt": numbered(10), "bin": "\x00\x01", "del.txt": "x\n"})
	c := e.begin()
	c.WriteFile(ctx, call1, "f.txt", []byte(replaceLine(numbered(10), 5, "FIVE\n")), 0)
	c.WriteFile(ctx, call1, "bin", []byte("\x00\x02"), 0)
	c.Remove(ctx, call1, "del.txt")
	hunks, _ := c.Hunks(ctx, "f.txt")
	if err := c.RejectHunk(ctx, "f.txt", "deadbeef", UndoOptions{}); !errors.Is(err, ErrStaleHunk) {
		t.Errorf("unknown hunk id = %v, want ErrStaleHunk", err)
	}
	if _, err := c.Hunks(ctx, "bin"); !errors.Is(err, ErrBinary) {
		t.Errorf("Hunks(binary) = %v, want ErrBinary", err)
	}
	if _, err := c.Hunks(ctx, "del.txt"); err == nil {
		t.Error("Hunks of a deleted file succeeded")
	}
	c.Rename(ctx, call1, "f.txt", "moved.txt")
	if _, err := c.Hunks(ctx, "moved.txt"); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("Hunks(rename destination) = %v, want ErrInvalidPath", err)
	}
	c.Rename(ctx, call1, "moved.txt", "f.txt")
	if _, err := c.Hunks(ctx, "untouched.txt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Hunks(untouched) = %v, want ErrNotFound", err)
	}
	// The agent writes again: the old id no longer names a hunk.
	c.WriteFile(ctx, call1, "f.txt", []byte(replaceLine(numbered(10), 5, "five\n")), 0)
	if err := c.AcceptHunk(ctx, "f.txt", hunks[0].ID); !errors.Is(err, ErrStaleHunk) {
		t.Errorf("stale id = %v, want ErrStaleHunk", err)
	}
	// A human edited the file: rejecting would destroy that edit.
	hunks, _ = c.Hunks(ctx, "f.txt")
	e.write("f.txt", "human\n")
	if err := c.RejectHunk(ctx, "f.txt", hunks[0].ID, UndoOptions{}); !errors.Is(err, ErrConflict) {
		t.Errorf("reject over a human edit = %v, want ErrConflict", err)
	}
	if got := e.tree()["f.txt"]; got != "human\n" {
		t.Errorf("human edit lost: %q", got)
	}
}
