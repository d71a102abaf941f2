package checkpoint_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/safety"
)

// wsTree reads every path under dir as "kind mode content".
func wsTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[filepath.ToSlash(rel)] = "link " + target
		case fi.IsDir():
			out[filepath.ToSlash(rel)] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = fi.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDirectoriesAndLinks drives Snapshot and Record around changes made
// behind the checkpoint's back, as a shell command makes them, and undoes
// them in a new Manager over the same SQLite file.
func TestDirectoriesAndLinks(t *testing.T) {
	call := checkpoint.Call{ID: "c1", Tool: "run_terminal_command"}
	for _, tc := range []struct {
		name    string
		paths   []string // snapshotted before, recorded after
		change  func(dir string) error
		changed []string // Diff, "kind path"
		removed []string
		restore []string
	}{
		{"remove a tree", []string{"d"}, func(dir string) error { return os.RemoveAll(filepath.Join(dir, "d")) },
			[]string{"deleted d/a.txt", "deleted d/sub/b.sh"}, nil, []string{"d/a.txt", "d/sub/b.sh"}},
		{"move a tree", []string{"d", "e/f"}, func(dir string) error {
			os.MkdirAll(filepath.Join(dir, "e"), 0o755)
			return os.Rename(filepath.Join(dir, "d"), filepath.Join(dir, "e", "f"))
		}, []string{"renamed e/f/a.txt", "renamed e/f/sub/b.sh"}, []string{"e/f/a.txt", "e/f/sub/b.sh"}, []string{"d/a.txt", "d/sub/b.sh"}},
		{"make directories", []string{"n"}, func(dir string) error { return os.MkdirAll(filepath.Join(dir, "n", "m"), 0o755) },
			nil, nil, nil},
		{"fill an existing directory", []string{"d"}, func(dir string) error {
			os.MkdirAll(filepath.Join(dir, "d", "new", "deep"), 0o755)
			return os.WriteFile(filepath.Join(dir, "d", "new", "deep", "c.txt"), []byte("c"), 0o644)
		}, []string{"added d/new/deep/c.txt"}, []string{"d/new/deep/c.txt"}, nil},
		{"chmod only", []string{"d/a.txt"}, func(dir string) error { return os.Chmod(filepath.Join(dir, "d", "a.txt"), 0o755) },
			[]string{"modified d/a.txt"}, nil, []string{"d/a.txt"}},
		{"make a link", []string{"l"}, func(dir string) error { return os.Symlink("d/a.txt", filepath.Join(dir, "l")) },
			[]string{"added l"}, []string{"l"}, nil},
		// The link's name is what was snapshotted: the directory it points
		// to is not the agent's, and its files are not "created".
		{"make a link to a directory", []string{"dl"}, func(dir string) error { return os.Symlink("d", filepath.Join(dir, "dl")) },
			[]string{"added dl"}, []string{"dl"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "d", "sub"), 0o755)
			os.WriteFile(filepath.Join(dir, "d", "a.txt"), []byte("a\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "d", "sub", "b.sh"), []byte("#!/bin/sh\n"), 0o755)
			before := wsTree(t, dir)
			db := filepath.Join(t.TempDir(), "cp.db")
			id := func() string {
				ws, store, m := openTreeManager(t, dir, db)
				defer ws.Close()
				defer store.Close()
				cp, err := m.Begin(ctx, "s", "")
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range tc.paths {
					if err := cp.Snapshot(ctx, p); err != nil {
						t.Fatalf("Snapshot(%s): %v", p, err)
					}
				}
				if err := tc.change(dir); err != nil {
					t.Fatal(err)
				}
				for _, p := range tc.paths {
					if err := cp.Record(ctx, call, p); err != nil {
						t.Fatalf("Record(%s): %v", p, err)
					}
				}
				d, err := cp.Diff(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, f := range d.Files {
					got = append(got, string(f.Kind)+" "+f.Path)
				}
				if !slices.Equal(got, tc.changed) {
					t.Errorf("diff %q, want %q", got, tc.changed)
				}
				return cp.ID()
			}()

			ws, store, m := openTreeManager(t, dir, db)
			defer ws.Close()
			defer store.Close()
			cp, err := m.Open(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := cp.Undo(ctx, checkpoint.UndoOptions{})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(rep.Removed)
			slices.Sort(rep.Restored)
			if !slices.Equal(rep.Removed, tc.removed) || !slices.Equal(rep.Restored, tc.restore) {
				t.Errorf("undo removed %q restored %q; want %q and %q", rep.Removed, rep.Restored, tc.removed, tc.restore)
			}
			if got := wsTree(t, dir); !maps(got, before) {
				t.Errorf("after undo:\n%v\nwant\n%v", got, before)
			}
		})
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func openTreeManager(t *testing.T, dir, db string) (*safety.Workspace, *sqlitestore.Store, *checkpoint.Manager) {
	t.Helper()
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlitestore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.New(ws, store)
	if err != nil {
		t.Fatal(err)
	}
	return ws, store, m
}

// TestTreeLimits: a directory with more files than WithMaxTreeFiles is
// refused whole, and a pre-existing link is never taken as a pre-image
// (it could not be put back), so removing one through a checkpoint fails.
func TestTreeLimits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "many"), 0o755)
	const limit = 50
	for i := range limit + 1 {
		os.WriteFile(filepath.Join(dir, "many", "f"+itoa(i)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	ws, store, _ := openTreeManager(t, dir, filepath.Join(t.TempDir(), "cp.db"))
	defer ws.Close()
	defer store.Close()
	if _, err := checkpoint.New(ws, store, checkpoint.WithMaxTreeFiles(0)); err == nil {
		t.Error("WithMaxTreeFiles(0) accepted")
	}
	m, err := checkpoint.New(ws, store, checkpoint.WithMaxTreeFiles(limit))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := m.Begin(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Snapshot(ctx, "many"); !errors.Is(err, checkpoint.ErrTooLarge) {
		t.Errorf("Snapshot of %d files: %v, want ErrTooLarge", limit+1, err)
	}
	if len(cp.Records()) != 0 {
		t.Errorf("a refused directory left records: %v", cp.Records())
	}
	// Record needs a Snapshot first: a directory's content before is
	// otherwise unknown, and its files must not be taken for new ones.
	if err := cp.Record(ctx, checkpoint.Call{}, "many"); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Errorf("Record of a directory never snapshotted: %v, want ErrNotFound", err)
	}
	if err := cp.Remove(ctx, checkpoint.Call{}, "link"); !errors.Is(err, checkpoint.ErrNotRegular) {
		t.Errorf("Remove(link): %v, want ErrNotRegular", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "link")); err != nil {
		t.Errorf("the link is gone: %v", err)
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// TestKeepDirectory: keeping a directory accepts every change recorded
// beneath it, so Undo restores none of them.
func TestKeepDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "d", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "sub", "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b"), 0o644)
	ws, store, m := openTreeManager(t, dir, filepath.Join(t.TempDir(), "cp.db"))
	defer ws.Close()
	defer store.Close()
	cp, err := m.Begin(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"d", "b.txt"} {
		if err := cp.Snapshot(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(dir, "d"))
	os.Remove(filepath.Join(dir, "b.txt"))
	for _, p := range []string{"d", "b.txt"} {
		if err := cp.Record(ctx, checkpoint.Call{}, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := cp.KeepFile(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	rep, err := cp.Undo(ctx, checkpoint.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Restored, []string{"b.txt"}) {
		t.Errorf("restored %q, want only b.txt", rep.Restored)
	}
	if _, err := os.Stat(filepath.Join(dir, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a kept removal came back: %v", err)
	}
}
