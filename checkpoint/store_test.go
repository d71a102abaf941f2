package checkpoint

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// storeFactories are the Store implementations the conformance suite runs
// against; each returns a fresh, empty store.
var storeFactories = map[string]func(t *testing.T) Store{
	"memory": func(t *testing.T) Store { return NewMemoryStore() },
	"sqlite": func(t *testing.T) Store {
		s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "cp.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	},
}

func forEachStore(t *testing.T, f func(t *testing.T, open func(t *testing.T) Store)) {
	for name, open := range storeFactories {
		t.Run(name, func(t *testing.T) { f(t, open) })
	}
}

func TestStoreConformance(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, open func(t *testing.T) Store) {
		s := open(t)
		defer s.Close()
		created := time.Unix(1700000000, 123)
		for i, id := range []string{"a", "b", "c"} {
			sess := "s1"
			if i == 2 {
				sess = "s2"
			}
			if err := s.Create(ctx, Info{ID: id, Session: sess, Label: "l" + id, Created: created, State: StateOpen, Workspace: "/ws/" + id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Create(ctx, Info{ID: "a", State: StateOpen}); err == nil {
			t.Error("Create with a duplicate id succeeded")
		}
		if _, err := s.Info(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Info(unknown) = %v, want ErrNotFound", err)
		}
		got, err := s.Info(ctx, "b")
		if err != nil || got.Label != "lb" || !got.Created.Equal(created) || got.State != StateOpen || got.Workspace != "/ws/b" {
			t.Errorf("Info(b) = %+v, %v", got, err)
		}
		list, err := s.List(ctx, "s1")
		if err != nil || len(list) != 2 || list[0].ID != "a" || list[1].ID != "b" {
			t.Errorf("List(s1) = %+v, %v", list, err)
		}
		if all, _ := s.List(ctx, ""); len(all) != 3 {
			t.Errorf("List(\"\") returned %d, want 3", len(all))
		}

		pre := Image{Exists: true, Hash: hashOf([]byte("old")), Mode: 0o600}
		post := Image{Exists: true, Hash: hashOf([]byte("new")), Mode: 0o600}
		rec := FileRecord{Checkpoint: "a", Path: "dir/x.go", Order: 2, Pre: pre, Post: post, Status: FilePending,
			Tainted: true, RenamedFrom: "y.go", CreatedDirs: []string{"dir"}}
		rec2 := FileRecord{Checkpoint: "a", Path: "a.go", Order: 5, Post: post, Status: FilePending, CreatedDirs: []string{}}
		ch := Change{Checkpoint: "a", Seq: 2, Path: "dir/x.go", From: "y.go", Op: OpRename, Call: Call{ID: "c1", Tool: "rename"},
			Before: pre, After: post, FromBefore: pre, Pending: true, Time: created}
		b := Batch{
			Blobs:   map[string][]byte{pre.Hash: []byte("old"), post.Hash: []byte("new"), hashOf(nil): {}},
			Files:   []FileRecord{rec2, rec},
			Changes: []Change{ch, {Checkpoint: "a", Seq: 1, Path: "a.go", Op: OpWrite, After: post, Time: created}},
			State:   StateKept,
		}
		if err := s.Commit(ctx, "a", b); err != nil {
			t.Fatal(err)
		}
		if data, err := s.Blob(ctx, pre.Hash); err != nil || string(data) != "old" {
			t.Errorf("Blob(pre) = %q, %v", data, err)
		}
		if data, err := s.Blob(ctx, hashOf(nil)); err != nil || data == nil || len(data) != 0 {
			t.Errorf("Blob(empty) = %#v, %v; want a non-nil empty slice", data, err)
		}
		if _, err := s.Blob(ctx, "missing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Blob(missing) = %v, want ErrNotFound", err)
		}
		files, err := s.Files(ctx, "a")
		if err != nil || len(files) != 2 {
			t.Fatalf("Files = %+v, %v", files, err)
		}
		if files[0].Path != "dir/x.go" || files[1].Path != "a.go" {
			t.Errorf("Files not in Order: %s, %s", files[0].Path, files[1].Path)
		}
		if g := files[0]; g.Pre != pre || g.Post != post || !g.Tainted || g.RenamedFrom != "y.go" || len(g.CreatedDirs) != 1 || g.Status != FilePending {
			t.Errorf("record round trip: got %+v, want %+v", g, rec)
		}
		changes, err := s.Changes(ctx, "a")
		if err != nil || len(changes) != 2 || changes[0].Seq != 1 || changes[1].Seq != 2 {
			t.Fatalf("Changes = %+v, %v", changes, err)
		}
		if g := changes[1]; g.Call != ch.Call || g.From != "y.go" || g.FromBefore != pre || !g.Pending || !g.Time.Equal(created) || g.Op != OpRename {
			t.Errorf("change round trip: got %+v, want %+v", g, ch)
		}
		if got, _ := s.Info(ctx, "a"); got.State != StateKept {
			t.Errorf("state after Commit = %s, want kept", got.State)
		}

		// Upsert and drop.
		ch.Pending = false
		rec.Status = FileUndone
		if err := s.Commit(ctx, "a", Batch{Files: []FileRecord{rec}, Changes: []Change{ch}, DropChanges: []int64{1}}); err != nil {
			t.Fatal(err)
		}
		changes, _ = s.Changes(ctx, "a")
		if len(changes) != 1 || changes[0].Pending {
			t.Errorf("after upsert+drop: %+v", changes)
		}
		files, _ = s.Files(ctx, "a")
		if files[0].Status != FileUndone {
			t.Errorf("record not upserted: %+v", files[0])
		}

		// A Commit with a record of another checkpoint changes nothing.
		bad := Batch{Blobs: map[string][]byte{"h": []byte("x")}, Files: []FileRecord{{Checkpoint: "b", Path: "z"}}, State: StateUndone}
		if err := s.Commit(ctx, "a", bad); err == nil {
			t.Error("Commit accepted a record of another checkpoint")
		}
		if got, _ := s.Info(ctx, "a"); got.State != StateKept {
			t.Error("a rejected Commit changed the state")
		}
		if err := s.Commit(ctx, "nope", Batch{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("Commit(unknown) = %v, want ErrNotFound", err)
		}

		// Delete frees blobs only this checkpoint used.
		shared := Image{Exists: true, Hash: pre.Hash}
		if err := s.Commit(ctx, "b", Batch{Files: []FileRecord{{Checkpoint: "b", Path: "s", Pre: shared, Post: shared, Status: FilePending}}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Info(ctx, "a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Info after Delete = %v", err)
		}
		if _, err := s.Files(ctx, "a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Files after Delete = %v", err)
		}
		if _, err := s.Blob(ctx, post.Hash); !errors.Is(err, ErrNotFound) {
			t.Errorf("unshared blob survived Delete: %v", err)
		}
		if _, err := s.Blob(ctx, pre.Hash); err != nil {
			t.Errorf("shared blob deleted: %v", err)
		}
		if err := s.Delete(ctx, "a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("second Delete = %v, want ErrNotFound", err)
		}
	})
}

// TestSQLiteMigratesOldStore opens a store left at schema version 1 and
// checks that it is upgraded in place, data kept.
func TestSQLiteMigratesOldStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`, `INSERT INTO schema_version VALUES (1)`, migrations[0],
		`INSERT INTO checkpoints (id, session, label, created_ns, state) VALUES ('old', 's', 'from v1', 1, 'open')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Errorf("version after migration = %d, want %d", v, len(migrations))
	}
	if i, err := s.Info(ctx, "old"); err != nil || i.Label != "from v1" || i.Workspace != "" {
		t.Errorf("v1 checkpoint after migration = %+v, %v", i, err)
	}
}

func TestSQLiteReopenAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, Info{ID: "x", Session: "s", State: StateOpen, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(migrations) {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, len(migrations))
	}
	if _, err := s.Info(ctx, "x"); err != nil {
		t.Errorf("checkpoint lost across reopen: %v", err)
	}
	// A store written by a newer program is refused, not misread.
	if _, err := s.db.ExecContext(ctx, `UPDATE schema_version SET version = 999`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := OpenSQLite(ctx, path); !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("OpenSQLite(newer schema) = %v, want ErrSchemaTooNew", err)
	}
	if _, err := OpenSQLite(ctx, ""); err == nil {
		t.Error("OpenSQLite(\"\") succeeded")
	}
}
