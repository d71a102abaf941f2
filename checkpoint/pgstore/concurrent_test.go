package pgstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/pgstore"
	"github.com/tetherdev/tether/internal/pgtest"
)

// TestConcurrentCommitsShareBlobs: 80 commits to 80 checkpoints, started
// together, each carrying the same 24 new blobs, three rounds over (as sessions on one workspace
// snapshot the same files). Inserted in map order, two such transactions
// wait on each other's uncommitted rows and PostgreSQL aborts one with a
// deadlock (SQLSTATE 40P01). Every commit must succeed, and every file it
// records must have its blob.
func TestConcurrentCommitsShareBlobs(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	sep := "?"
	if !strings.Contains(dsn, "://") {
		sep = " "
	} else if strings.Contains(dsn, "?") {
		sep = "&"
	}
	// Enough connections that the commits really overlap.
	s, err := pgstore.Open(ctx, dsn+sep+"pool_max_conns=40")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	for round := range 3 {
		commitTogether(t, s, round)
	}
}

func commitTogether(t *testing.T, s *pgstore.Store, round int) {
	ctx := context.Background()
	blobs := map[string][]byte{}
	var hashes []string
	for i := range 24 {
		data := []byte(fmt.Sprintf("round %d: shared pre-image %d\n", round, i))
		sum := sha256.Sum256(data)
		h := hex.EncodeToString(sum[:])
		blobs[h] = data
		hashes = append(hashes, h)
	}
	const commits = 80
	for i := range commits {
		id := fmt.Sprintf("r%d-cp%02d", round, i)
		if err := s.Create(ctx, checkpoint.Info{ID: id, Session: "s", Created: time.Now(), State: checkpoint.StateOpen}); err != nil {
			t.Fatal(err)
		}
	}
	start := make(chan struct{})
	errs := make([]error, commits)
	var wg sync.WaitGroup
	for i := range commits {
		wg.Go(func() {
			id := fmt.Sprintf("r%d-cp%02d", round, i)
			b := checkpoint.Batch{Blobs: map[string][]byte{}}
			for j, h := range hashes {
				b.Blobs[h] = blobs[h]
				img := checkpoint.Image{Exists: true, Hash: h, Mode: 0o644}
				b.Files = append(b.Files, checkpoint.FileRecord{Checkpoint: id, Path: fmt.Sprintf("f%02d", j),
					Order: int64(j), Pre: img, Post: img, Status: checkpoint.FilePending})
			}
			<-start
			errs[i] = s.Commit(ctx, id, b)
		})
	}
	close(start)
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			if failed <= 3 {
				t.Errorf("commit %d: %v", i, err)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d concurrent commits failed", failed, commits)
	}
	for i := range commits {
		id := fmt.Sprintf("r%d-cp%02d", round, i)
		files, err := s.Files(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(hashes) {
			t.Fatalf("%s holds %d files, want %d", id, len(files), len(hashes))
		}
	}
	for _, h := range hashes {
		got, err := s.Blob(ctx, h)
		if err != nil || string(got) != string(blobs[h]) {
			t.Fatalf("blob %s = %q, %v; want %q", h[:8], got, err, blobs[h])
		}
	}
}
