// Package storetest holds the conformance suites every store
// implementation passes (memory, SQLite, PostgreSQL), so that each store
// package runs the same checks on its own store.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/checkpoint"
)

func hashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// Checkpoint is the conformance suite every checkpoint.Store passes: open
// returns a fresh, empty store, which the suite closes.
func Checkpoint(t *testing.T, open func(t *testing.T) checkpoint.Store) {
	t.Helper()
	ctx := context.Background()
	t.Run("contract", func(t *testing.T) {
		s := open(t)
		defer s.Close()
		created := time.Unix(1700000000, 123)
		for i, id := range []string{"a", "b", "c"} {
			sess := "s1"
			if i == 2 {
				sess = "s2"
			}
			if err := s.Create(ctx, checkpoint.Info{ID: id, Session: sess, Label: "l" + id, Created: created, State: checkpoint.StateOpen, Workspace: "/ws/" + id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Create(ctx, checkpoint.Info{ID: "a", State: checkpoint.StateOpen}); err == nil {
			t.Error("Create with a duplicate id succeeded")
		}
		if _, err := s.Info(ctx, "nope"); !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("checkpoint.Info(unknown) = %v, want checkpoint.ErrNotFound", err)
		}
		got, err := s.Info(ctx, "b")
		if err != nil || got.Label != "lb" || !got.Created.Equal(created) || got.State != checkpoint.StateOpen || got.Workspace != "/ws/b" {
			t.Errorf("checkpoint.Info(b) = %+v, %v", got, err)
		}
		list, err := s.List(ctx, "s1")
		if err != nil || len(list) != 2 || list[0].ID != "a" || list[1].ID != "b" {
			t.Errorf("List(s1) = %+v, %v", list, err)
		}
		if all, _ := s.List(ctx, ""); len(all) != 3 {
			t.Errorf("List(\"\") returned %d, want 3", len(all))
		}

		pre := checkpoint.Image{Exists: true, Hash: hashOf([]byte("old")), Mode: 0o600}
		post := checkpoint.Image{Exists: true, Hash: hashOf([]byte("new")), Mode: 0o600}
		rec := checkpoint.FileRecord{Checkpoint: "a", Path: "dir/x.go", Order: 2, Pre: pre, Post: post, Status: checkpoint.FilePending,
			Tainted: true, RenamedFrom: "y.go", CreatedDirs: []string{"dir"}}
		rec2 := checkpoint.FileRecord{Checkpoint: "a", Path: "a.go", Order: 5, Post: post, Status: checkpoint.FilePending, CreatedDirs: []string{}}
		ch := checkpoint.Change{Checkpoint: "a", Seq: 2, Path: "dir/x.go", From: "y.go", Op: checkpoint.OpRename, Call: checkpoint.Call{ID: "c1", Tool: "rename"},
			Before: pre, After: post, FromBefore: pre, Pending: true, Time: created}
		b := checkpoint.Batch{
			Blobs:   map[string][]byte{pre.Hash: []byte("old"), post.Hash: []byte("new"), hashOf(nil): {}},
			Files:   []checkpoint.FileRecord{rec2, rec},
			Changes: []checkpoint.Change{ch, {Checkpoint: "a", Seq: 1, Path: "a.go", Op: checkpoint.OpWrite, After: post, Time: created}},
			State:   checkpoint.StateKept,
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
		if _, err := s.Blob(ctx, "missing"); !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("Blob(missing) = %v, want checkpoint.ErrNotFound", err)
		}
		files, err := s.Files(ctx, "a")
		if err != nil || len(files) != 2 {
			t.Fatalf("Files = %+v, %v", files, err)
		}
		if files[0].Path != "dir/x.go" || files[1].Path != "a.go" {
			t.Errorf("Files not in Order: %s, %s", files[0].Path, files[1].Path)
		}
		if g := files[0]; g.Pre != pre || g.Post != post || !g.Tainted || g.RenamedFrom != "y.go" || len(g.CreatedDirs) != 1 || g.Status != checkpoint.FilePending {
			t.Errorf("record round trip: got %+v, want %+v", g, rec)
		}
		changes, err := s.Changes(ctx, "a")
		if err != nil || len(changes) != 2 || changes[0].Seq != 1 || changes[1].Seq != 2 {
			t.Fatalf("Changes = %+v, %v", changes, err)
		}
		if g := changes[1]; g.Call != ch.Call || g.From != "y.go" || g.FromBefore != pre || !g.Pending || !g.Time.Equal(created) || g.Op != checkpoint.OpRename {
			t.Errorf("change round trip: got %+v, want %+v", g, ch)
		}
		if got, _ := s.Info(ctx, "a"); got.State != checkpoint.StateKept {
			t.Errorf("state after Commit = %s, want kept", got.State)
		}

		// Upsert and drop.
		ch.Pending = false
		rec.Status = checkpoint.FileUndone
		if err := s.Commit(ctx, "a", checkpoint.Batch{Files: []checkpoint.FileRecord{rec}, Changes: []checkpoint.Change{ch}, DropChanges: []int64{1}}); err != nil {
			t.Fatal(err)
		}
		changes, _ = s.Changes(ctx, "a")
		if len(changes) != 1 || changes[0].Pending {
			t.Errorf("after upsert+drop: %+v", changes)
		}
		files, _ = s.Files(ctx, "a")
		if files[0].Status != checkpoint.FileUndone {
			t.Errorf("record not upserted: %+v", files[0])
		}

		// A Commit with a record of another checkpoint changes nothing.
		bad := checkpoint.Batch{Blobs: map[string][]byte{"h": []byte("x")}, Files: []checkpoint.FileRecord{{Checkpoint: "b", Path: "z"}}, State: checkpoint.StateUndone}
		if err := s.Commit(ctx, "a", bad); err == nil {
			t.Error("Commit accepted a record of another checkpoint")
		}
		if got, _ := s.Info(ctx, "a"); got.State != checkpoint.StateKept {
			t.Error("a rejected Commit changed the state")
		}
		if err := s.Commit(ctx, "nope", checkpoint.Batch{}); !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("Commit(unknown) = %v, want checkpoint.ErrNotFound", err)
		}

		// Delete frees blobs only this checkpoint used.
		shared := checkpoint.Image{Exists: true, Hash: pre.Hash}
		if err := s.Commit(ctx, "b", checkpoint.Batch{Files: []checkpoint.FileRecord{{Checkpoint: "b", Path: "s", Pre: shared, Post: shared, Status: checkpoint.FilePending}}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Info(ctx, "a"); !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("Info after Delete = %v", err)
		}
		if _, err := s.Files(ctx, "a"); !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("Files after Delete = %v", err)
		}
		if _, err := s.Blob(ctx, post.Hash); !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("unshared blob survived Delete: %v", err)
		}
		if _, err := s.Blob(ctx, pre.Hash); err != nil {
			t.Errorf("shared blob deleted: %v", err)
		}
		if err := s.Delete(ctx, "a"); !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("second Delete = %v, want checkpoint.ErrNotFound", err)
		}
	})
	t.Run("concurrent commits and deletes", func(t *testing.T) {
		s := open(t)
		defer s.Close()
		checkpointConcurrency(t, s)
	})
}

// checkpointConcurrency commits checkpoints that share one blob from many
// goroutines while half of them are deleted again: a delete must never
// prune the shared blob from under a commit that refers to it.
func checkpointConcurrency(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	shared := []byte("shared pre-image")
	sharedImg := checkpoint.Image{Exists: true, Hash: hashOf(shared), Mode: 0o644}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprint("cp", i)
			own := []byte(id + " content")
			ownImg := checkpoint.Image{Exists: true, Hash: hashOf(own), Mode: 0o644}
			if err := s.Create(ctx, checkpoint.Info{ID: id, Session: "s", Created: time.Now(), State: checkpoint.StateOpen}); err != nil {
				t.Error(err)
				return
			}
			for round := range 3 {
				err := s.Commit(ctx, id, checkpoint.Batch{Blobs: map[string][]byte{sharedImg.Hash: shared, ownImg.Hash: own},
					Files: []checkpoint.FileRecord{{Checkpoint: id, Path: fmt.Sprint("f", round), Pre: sharedImg, Post: ownImg, Status: checkpoint.FilePending}}})
				if err != nil {
					t.Error(err)
					return
				}
			}
			if i%2 == 0 {
				if err := s.Delete(ctx, id); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if _, err := s.Blob(ctx, sharedImg.Hash); err != nil {
		t.Fatalf("the blob the remaining checkpoints share is gone: %v", err)
	}
	for i := range n {
		id := fmt.Sprint("cp", i)
		_, err := s.Blob(ctx, hashOf([]byte(id+" content")))
		if i%2 == 0 && !errors.Is(err, checkpoint.ErrNotFound) {
			t.Errorf("%s was deleted but its own blob remains (%v)", id, err)
		}
		if i%2 == 1 && err != nil {
			t.Errorf("%s: its blob is gone: %v", id, err)
		}
	}
}
