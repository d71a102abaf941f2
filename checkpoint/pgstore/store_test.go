package pgstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/pgstore"
	"github.com/tetherdev/tether/internal/pgtest"
	"github.com/tetherdev/tether/internal/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func open(t *testing.T) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(context.Background(), pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Checkpoint(t, func(t *testing.T) checkpoint.Store { return open(t) })
}

// TestLargeBlob round-trips a pre-image several read slices long, and one
// that is shared: the second commit of the same content sends nothing.
func TestLargeBlob(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), (3<<20+12345)/16)
	sum := sha256.Sum256(big)
	h := hex.EncodeToString(sum[:])
	img := checkpoint.Image{Exists: true, Hash: h, Mode: 0o644}
	for _, id := range []string{"a", "b"} {
		if err := s.Create(ctx, checkpoint.Info{ID: id, Session: "s", Created: time.Now(), State: checkpoint.StateOpen}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, id, checkpoint.Batch{Blobs: map[string][]byte{h: big},
			Files: []checkpoint.FileRecord{{Checkpoint: id, Path: "big.bin", Pre: img, Post: img, Status: checkpoint.FilePending}}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Blob(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, big) {
		t.Fatalf("blob of %d bytes came back as %d bytes, not equal", len(big), len(got))
	}
	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Blob(ctx, h); err != nil {
		t.Errorf("a blob still used by checkpoint b was pruned: %v", err)
	}
}

func TestSchemaVersionAndReopen(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	for range 2 { // the second open finds the schema in place
		s, err := pgstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := s.SchemaVersion(ctx); err != nil || v != 1 {
			t.Errorf("SchemaVersion = %d, %v; want 1", v, err)
		}
		s.Close()
	}
}

// TestConcurrentMigration: workers starting together on a fresh database
// all open it; the advisory lock makes them migrate one at a time.
func TestConcurrentMigration(t *testing.T) {
	dsn := pgtest.Database(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s, err := pgstore.Open(context.Background(), dsn)
			if err != nil {
				t.Error(err)
				return
			}
			s.Close()
		})
	}
	wg.Wait()
}

// TestSchemaTooNew: a database migrated by a newer Tether is refused,
// not misread.
func TestSchemaTooNew(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	s, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE tether_checkpoint_schema SET version = 999`); err != nil {
		t.Fatal(err)
	}
	if _, err := pgstore.Open(ctx, dsn); !errors.Is(err, checkpoint.ErrSchemaTooNew) {
		t.Errorf("Open(newer schema) = %v, want ErrSchemaTooNew", err)
	}
	if _, err := pgstore.Open(ctx, "postgres://no host at all"); err == nil {
		t.Error("Open with a malformed connection string succeeded")
	}
}
