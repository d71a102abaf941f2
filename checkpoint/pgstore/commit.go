package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tetherdev/tether/checkpoint"
)

// blobGuard is the advisory lock that orders blob pruning against
// commits: a Commit holds it shared, so commits run in parallel, and a
// Delete holds it exclusively, so it never prunes a blob that a commit in
// flight has found present and is about to refer to.
const blobGuard = int64(0x7465746865722d62) // "tether-b"

// Commit writes the batch in one transaction. Blobs are inserted in sorted
// order, so commits sharing blobs wait for each other rather than deadlock;
// a transaction PostgreSQL still aborts as a deadlock or serialisation
// failure (another client's locking, a stricter isolation level) is retried
// from the start, at most commitAttempts times in all. An error means
// nothing of the batch was stored.
func (s *Store) Commit(ctx context.Context, id string, b checkpoint.Batch) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("checkpoint: commit to %s: %w", id, err)
		}
	}()
	if err := b.Belongs(id); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err = s.commitOnce(ctx, id, b)
		if err == nil || !retryable(err) {
			return err
		}
		if attempt == commitAttempts {
			return fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		// Back off a random while that grows, so the transactions that
		// collided do not meet again at once.
		wait := time.Duration(rand.Int64N(int64(10*time.Millisecond) << attempt))
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// commitAttempts bounds Commit's retries of a transaction PostgreSQL
// aborted as a deadlock or serialisation failure.
const commitAttempts = 5

// retryable reports whether err is PostgreSQL aborting the transaction so
// that it can be run again: a serialisation failure (40001) or a deadlock
// (40P01).
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

func (s *Store) commitOnce(ctx context.Context, id string, b checkpoint.Batch) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, blobGuard); err != nil {
		return err
	}
	// The row lock serialises commits to one checkpoint across workers.
	var one int
	err = tx.QueryRow(ctx, `SELECT 1 FROM tether_checkpoints WHERE id = $1 FOR UPDATE`, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return checkpoint.ErrNotFound
	}
	if err != nil {
		return err
	}
	if err := putBlobs(ctx, tx, b.Blobs); err != nil {
		return err
	}
	var batch pgx.Batch
	for _, f := range b.Files {
		dirs, _ := json.Marshal(f.CreatedDirs) // a []string always marshals
		batch.Queue(`INSERT INTO tether_checkpoint_files (checkpoint, path, ord,
			pre_exists, pre_hash, pre_mode, post_exists, post_hash, post_mode, status, tainted, renamed_from, created_dirs)
			VALUES ($1,$2,$3, $4,$5,$6, $7,$8,$9, $10,$11,$12,$13)
			ON CONFLICT (checkpoint, path) DO UPDATE SET ord = excluded.ord,
			pre_exists = excluded.pre_exists, pre_hash = excluded.pre_hash, pre_mode = excluded.pre_mode,
			post_exists = excluded.post_exists, post_hash = excluded.post_hash, post_mode = excluded.post_mode,
			status = excluded.status, tainted = excluded.tainted, renamed_from = excluded.renamed_from, created_dirs = excluded.created_dirs`,
			id, f.Path, f.Order, f.Pre.Exists, f.Pre.Hash, int64(f.Pre.Mode), f.Post.Exists, f.Post.Hash, int64(f.Post.Mode),
			string(f.Status), f.Tainted, f.RenamedFrom, string(dirs))
	}
	for _, c := range b.Changes {
		batch.Queue(`INSERT INTO tether_checkpoint_changes (checkpoint, seq, path, from_path, op, call_id, tool,
			before_exists, before_hash, before_mode, after_exists, after_hash, after_mode, from_exists, from_hash, from_mode, pending, time_ns)
			VALUES ($1,$2,$3,$4,$5,$6,$7, $8,$9,$10, $11,$12,$13, $14,$15,$16, $17,$18)
			ON CONFLICT (checkpoint, seq) DO UPDATE SET path = excluded.path, from_path = excluded.from_path, op = excluded.op,
			call_id = excluded.call_id, tool = excluded.tool,
			before_exists = excluded.before_exists, before_hash = excluded.before_hash, before_mode = excluded.before_mode,
			after_exists = excluded.after_exists, after_hash = excluded.after_hash, after_mode = excluded.after_mode,
			from_exists = excluded.from_exists, from_hash = excluded.from_hash, from_mode = excluded.from_mode,
			pending = excluded.pending, time_ns = excluded.time_ns`,
			id, c.Seq, c.Path, c.From, string(c.Op), c.Call.ID, c.Call.Tool,
			c.Before.Exists, c.Before.Hash, int64(c.Before.Mode), c.After.Exists, c.After.Hash, int64(c.After.Mode),
			c.FromBefore.Exists, c.FromBefore.Hash, int64(c.FromBefore.Mode), c.Pending, c.Time.UnixNano())
	}
	for _, seq := range b.DropChanges {
		batch.Queue(`DELETE FROM tether_checkpoint_changes WHERE checkpoint = $1 AND seq = $2`, id, seq)
	}
	if b.State != "" {
		batch.Queue(`UPDATE tether_checkpoints SET state = $1 WHERE id = $2`, string(b.State), id)
	}
	if batch.Len() > 0 {
		if err := tx.SendBatch(ctx, &batch).Close(); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// putBlobs stores the blobs the database does not have yet. Asking first
// means a large pre-image that many checkpoints share crosses the wire
// once, and each one that does is sent straight from the caller's slice.
// They are inserted in sorted order: two transactions inserting the same
// new blobs then meet on the first one, and the second waits for the first
// to end instead of each holding a row the other needs (a deadlock).
func putBlobs(ctx context.Context, tx pgx.Tx, blobs map[string][]byte) error {
	if len(blobs) == 0 {
		return nil
	}
	hashes := slices.Sorted(maps.Keys(blobs))
	rows, err := tx.Query(ctx, `SELECT hash FROM tether_checkpoint_blobs WHERE hash = ANY($1)`, hashes)
	if err != nil {
		return err
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	present := make(map[string]bool, len(have))
	for _, h := range have {
		present[h] = true
	}
	for _, h := range hashes {
		data := blobs[h]
		if present[h] {
			continue
		}
		if data == nil {
			data = []byte{} // BYTEA NOT NULL: the empty file is an empty blob
		}
		if _, err := tx.Exec(ctx, `INSERT INTO tether_checkpoint_blobs (hash, data) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`, h, data); err != nil {
			return err
		}
	}
	return nil
}

// blobSlice is how much of a blob one query reads: a large pre-image is
// assembled from slices of this size into the one buffer returned, rather
// than held whole in the driver's read buffer and copied again.
const blobSlice = 1 << 20

func (s *Store) Blob(ctx context.Context, hash string) ([]byte, error) {
	var size int64
	err := s.pool.QueryRow(ctx, `SELECT octet_length(data) FROM tether_checkpoint_blobs WHERE hash = $1`, hash).Scan(&size)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: %w", hash, checkpoint.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", hash, err)
	}
	out := make([]byte, 0, size)
	for int64(len(out)) < size {
		// part is at most blobSlice long; append copies it into out, so
		// the whole blob exists once, in out.
		var part []byte
		err := s.pool.QueryRow(ctx, `SELECT substring(data FROM $2 FOR $3) FROM tether_checkpoint_blobs WHERE hash = $1`,
			hash, int64(len(out))+1, int64(blobSlice)).Scan(&part)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("blob %s: deleted while being read: %w", hash, checkpoint.ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("blob %s: %w", hash, err)
		}
		if len(part) == 0 {
			return nil, fmt.Errorf("blob %s: shorter than its recorded %d bytes", hash, size)
		}
		out = append(out, part...)
	}
	return out, nil
}

func (s *Store) Delete(ctx context.Context, id string) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, blobGuard); err != nil {
		return fmt.Errorf("checkpoint: delete %s: %w", id, err)
	}
	tag, err := tx.Exec(ctx, `DELETE FROM tether_checkpoints WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("checkpoint: delete %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("checkpoint %q: %w", id, checkpoint.ErrNotFound)
	}
	// Files and changes go by ON DELETE CASCADE; then the blobs nothing refers to.
	if _, err := tx.Exec(ctx, `DELETE FROM tether_checkpoint_blobs b
		WHERE NOT EXISTS (SELECT 1 FROM tether_checkpoint_files WHERE pre_hash = b.hash)
		AND NOT EXISTS (SELECT 1 FROM tether_checkpoint_files WHERE post_hash = b.hash)
		AND NOT EXISTS (SELECT 1 FROM tether_checkpoint_changes WHERE before_hash = b.hash)
		AND NOT EXISTS (SELECT 1 FROM tether_checkpoint_changes WHERE after_hash = b.hash)
		AND NOT EXISTS (SELECT 1 FROM tether_checkpoint_changes WHERE from_hash = b.hash)`); err != nil {
		return fmt.Errorf("checkpoint: delete %s: pruning blobs: %w", id, err)
	}
	return tx.Commit(ctx)
}
