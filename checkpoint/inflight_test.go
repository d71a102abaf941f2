package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// listingFiles is rootFiles that can list directories, as
// *safety.Workspace can.
type listingFiles struct {
	*rootFiles
	dir string
}

func (f listingFiles) ReadDir(name string) ([]fs.DirEntry, error) {
	return os.ReadDir(filepath.Join(f.dir, name))
}

func newListingFiles(t *testing.T, dir string) listingFiles {
	return listingFiles{newRootFiles(t, dir), dir}
}

// deadOwner names a process of this host that cannot exist, as a marker
// left by a killed agent does.
func deadOwner(t *testing.T) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/1", host, 1<<30)
}

// inFlight runs change between SnapshotFor and a crash: the first
// manager (a process that dies) never calls Record. It returns a second
// manager on the same store, as after a restart.
func inFlight(t *testing.T, dir string, store Store, paths []string, change func()) (*Manager, string) {
	t.Helper()
	ctx := context.Background()
	m1, err := New(newListingFiles(t, dir), store)
	if err != nil {
		t.Fatal(err)
	}
	m1.owner = deadOwner(t)
	c, err := m1.Begin(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if err := c.SnapshotFor(ctx, Call{ID: "call_1", Tool: "run_command"}, p); err != nil {
			t.Fatal(err)
		}
	}
	change()
	m2, err := New(newListingFiles(t, dir), store)
	if err != nil {
		t.Fatal(err)
	}
	return m2, c.ID()
}

// A command killed with the agent deleted, edited, created and chmodded
// files it was snapshotted for: after the restart, undo restores each.
func TestInFlightCommandUndoneAfterRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, s string, mode fs.FileMode) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	write("gone.txt", "keep me\n", 0o644)
	write("edited.txt", "v1\n", 0o644)
	write("script.sh", "echo hi\n", 0o644)
	write("tree/a.txt", "a\n", 0o644)
	write("tree/sub/b.txt", "b\n", 0o644)
	store := NewMemoryStore()
	m2, id := inFlight(t, dir, store, []string{"gone.txt", "edited.txt", "script.sh", "new.txt", "tree"}, func() {
		os.Remove(filepath.Join(dir, "gone.txt"))
		write("edited.txt", "v2\n", 0o644)
		os.Chmod(filepath.Join(dir, "script.sh"), 0o755)
		write("new.txt", "made by the command\n", 0o644)
		os.RemoveAll(filepath.Join(dir, "tree"))
	})
	c, err := m2.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 6 {
		t.Errorf("diff after restart lists %d files, want 6 (the in-flight command's changes): %+v", len(d.Files), d.Files)
	}
	rep, err := c.Undo(ctx, UndoOptions{})
	if err != nil {
		t.Fatalf("Undo = %v (report %+v)", err, rep)
	}
	for name, want := range map[string]string{"gone.txt": "keep me\n", "edited.txt": "v1\n", "script.sh": "echo hi\n", "tree/a.txt": "a\n", "tree/sub/b.txt": "b\n"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "script.sh")); fi == nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("script.sh mode not restored: %v", fi)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("new.txt, created by the command, still exists after undo (err %v)", err)
	}
	changes, _ := store.Changes(ctx, id)
	for _, ch := range changes {
		if ch.Pending {
			t.Errorf("change left pending after recovery: %+v", ch)
		}
	}
}

// A marker of a process that is still running (another process sharing
// the store) is left to it: its files are not taken as the call's yet.
func TestInFlightOfALiveProcessIsNotSettled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v1\n"), 0o644)
	store := NewMemoryStore()
	m1, _ := New(newListingFiles(t, dir), store) // alive: this very process
	c1, _ := m1.Begin(ctx, "s", "")
	if err := c1.SnapshotFor(ctx, Call{ID: "c"}, "a.txt"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("half-way\n"), 0o644)
	m2, _ := New(newListingFiles(t, dir), store)
	c2, err := m2.Open(ctx, c1.ID())
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := c2.Diff(ctx); len(d.Files) != 0 {
		t.Errorf("another process settled a live call's marker: %+v", d.Files)
	}
	// The owner records as usual.
	if err := c1.Record(ctx, Call{ID: "c"}, "a.txt"); err != nil {
		t.Fatal(err)
	}
	changes, _ := store.Changes(ctx, c1.ID())
	for _, ch := range changes {
		if ch.Op == OpSnapshot {
			t.Errorf("marker not dropped by Record: %+v", ch)
		}
	}
}

// failingStore refuses commits while fail is set, as a store on a full
// disk does.
type failingStore struct {
	Store
	fail atomic.Bool
}

func (s *failingStore) Commit(ctx context.Context, id string, b Batch) error {
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.Store.Commit(ctx, id, b)
}

// The pre-image was saved but the command's change could not be
// recorded: the change stays in undo's reach in this process and after
// a restart.
func TestRecordNotSavedStaysUndoable(t *testing.T) {
	ctx := context.Background()
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v1\n"), 0o644)
			store := &failingStore{Store: NewMemoryStore()}
			m, _ := New(newListingFiles(t, dir), store)
			m.owner = deadOwner(t)
			c, _ := m.Begin(ctx, "s", "")
			call := Call{ID: "c", Tool: "run_command"}
			if err := c.SnapshotFor(ctx, call, "a.txt"); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(dir, "a.txt"))
			store.fail.Store(true)
			if err := c.Record(ctx, call, "a.txt"); err == nil {
				t.Fatal("Record succeeded on a failing store")
			}
			store.fail.Store(false)
			if restart {
				m2, _ := New(newListingFiles(t, dir), store)
				var err error
				if c, err = m2.Open(ctx, c.ID()); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.Undo(ctx, UndoOptions{}); err != nil {
				t.Fatalf("Undo = %v", err)
			}
			if got, err := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "v1\n" {
				t.Errorf("a.txt = %q, %v; want it restored", got, err)
			}
		})
	}
}

// A write killed between its temporary file and the rename leaves the
// temporary file; the restart removes it, and only it.
func TestTornTemporaryFileRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v1\n"), 0o644)
	store := &failingStore{Store: NewMemoryStore()}
	m1, _ := New(newListingFiles(t, dir), store)
	c, _ := m1.Begin(ctx, "s", "")
	content := []byte("the new content, long enough to be cut\n")
	torn := filepath.Join(dir, ".tether-0123456789abcdef.tmp")
	other := filepath.Join(dir, ".tether-fedcba9876543210.tmp")
	os.WriteFile(other, []byte("another write's bytes"), 0o644)
	// The write-ahead record commits, then the "process dies" in the
	// write: a torn temporary file stays and nothing more is committed.
	err := c.mutation(ctx, Batch{Blobs: map[string][]byte{hashOf(content): content},
		Files: []FileRecord{{Checkpoint: c.ID(), Path: "a.txt", Order: 1, Status: FilePending,
			Pre:  Image{Exists: true, Hash: hashOf([]byte("v1\n")), Mode: 0o644},
			Post: Image{Exists: true, Hash: hashOf(content), Mode: 0o644}}},
		Changes: []Change{{Checkpoint: c.ID(), Seq: 1, Path: "a.txt", Op: OpWrite, Pending: true,
			Before: Image{Exists: true, Hash: hashOf([]byte("v1\n")), Mode: 0o644},
			After:  Image{Exists: true, Hash: hashOf(content), Mode: 0o644}}}},
		func() error {
			os.WriteFile(torn, content[:10], 0o644)
			store.fail.Store(true)
			return errors.New("killed")
		})
	if err == nil {
		t.Fatal("mutation succeeded")
	}
	store.fail.Store(false)
	m2, _ := New(newListingFiles(t, dir), store)
	if _, err := m2.Open(ctx, c.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(torn); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("torn temporary file still there after restart (err %v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another write's temporary file was removed: %v", err)
	}
}
