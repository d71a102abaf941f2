package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// DefaultMaxFileSize is the largest file a checkpoint snapshots unless
// WithMaxFileSize says otherwise. Agents edit source files; a bigger file
// is almost always a build artefact or a data set that should not be
// copied into the store on every write.
const DefaultMaxFileSize = 32 << 20

// Manager opens checkpoints over one workspace (Files) and one Store. It
// is safe for concurrent use by many sessions: writes to the same path
// from different checkpoints are serialised, and each checkpoint's
// records are guarded by its own lock.
type Manager struct {
	files   Files
	store   Store
	log     *slog.Logger
	maxSize int64
	now     func() time.Time

	mu   sync.Mutex
	open map[string]*Checkpoint // one handle per id, so cached records never diverge

	// stripes serialise mutations of one path across checkpoints. Lock
	// order: Checkpoint.mu, then stripes in ascending index.
	stripes [64]sync.Mutex
}

// Option configures a Manager.
type Option func(*Manager) error

// WithLogger sends undo decisions, skipped files and crash recoveries to
// l. The default discards them.
func WithLogger(l *slog.Logger) Option {
	return func(m *Manager) error {
		if l == nil {
			return errors.New("checkpoint: WithLogger(nil); pass slog.New(slog.DiscardHandler) to silence logs")
		}
		m.log = l
		return nil
	}
}

// WithMaxFileSize sets the largest file (in bytes) that can be
// snapshotted or written through a checkpoint.
func WithMaxFileSize(n int64) Option {
	return func(m *Manager) error {
		if n <= 0 {
			return fmt.Errorf("checkpoint: WithMaxFileSize(%d): the limit must be positive", n)
		}
		m.maxSize = n
		return nil
	}
}

// WithClock replaces time.Now, for reproducible tests.
func WithClock(now func() time.Time) Option {
	return func(m *Manager) error {
		if now == nil {
			return errors.New("checkpoint: WithClock(nil)")
		}
		m.now = now
		return nil
	}
}

// New returns a Manager that reads and writes files through files and
// keeps checkpoints in store (OpenSQLite for undo that survives a
// restart, NewMemoryStore for tests). The caller closes the store.
func New(files Files, store Store, opts ...Option) (*Manager, error) {
	if files == nil {
		return nil, errors.New("checkpoint: New: nil Files; pass a *safety.Workspace")
	}
	if store == nil {
		return nil, errors.New("checkpoint: New: nil Store; pass OpenSQLite(ctx, path) or NewMemoryStore()")
	}
	m := &Manager{
		files:   files,
		store:   store,
		log:     slog.New(slog.DiscardHandler),
		maxSize: DefaultMaxFileSize,
		now:     time.Now,
		open:    map[string]*Checkpoint{},
	}
	for _, o := range opts {
		if err := o(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Store returns the manager's store.
func (m *Manager) Store() Store { return m.store }

// Begin opens a new checkpoint. Call it once per agent run, or once per
// turn for finer undo: every checkpoint undoes independently.
func (m *Manager) Begin(ctx context.Context, session, label string) (*Checkpoint, error) {
	info := Info{ID: newID(m.now()), Session: session, Label: label, Created: m.now(), State: StateOpen}
	if err := m.store.Create(ctx, info); err != nil {
		return nil, err
	}
	c := &Checkpoint{m: m, info: info, files: map[string]FileRecord{}, nextSeq: 1}
	m.mu.Lock()
	m.open[info.ID] = c
	m.mu.Unlock()
	return c, nil
}

// Open returns the checkpoint with that id, loading it from the store if
// this process has not seen it (after a restart). Loading settles writes
// a crash interrupted: a change whose file shows the new content is
// confirmed, one whose file still shows the old content is rolled back.
func (m *Manager) Open(ctx context.Context, id string) (*Checkpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.open[id]; ok {
		return c, nil
	}
	info, err := m.store.Info(ctx, id)
	if err != nil {
		return nil, err
	}
	recs, err := m.store.Files(ctx, id)
	if err != nil {
		return nil, err
	}
	changes, err := m.store.Changes(ctx, id)
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{m: m, info: info, files: map[string]FileRecord{}, nextSeq: 1}
	for _, r := range recs {
		c.files[r.Path] = r
	}
	for _, ch := range changes {
		c.nextSeq = max(c.nextSeq, ch.Seq+1)
	}
	for _, r := range recs {
		c.nextSeq = max(c.nextSeq, r.Order+1)
	}
	if err := c.recover(ctx, changes); err != nil {
		return nil, err
	}
	m.open[id] = c
	return c, nil
}

// List returns the session's checkpoints, oldest first ("" for all).
func (m *Manager) List(ctx context.Context, session string) ([]Info, error) {
	return m.store.List(ctx, session)
}

// Delete forgets a checkpoint and frees the pre-images only it used. Its
// changes can no longer be undone; the files are not touched.
func (m *Manager) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	c := m.open[id]
	delete(m.open, id)
	m.mu.Unlock()
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.info.State = StateKept
	}
	return m.store.Delete(ctx, id)
}

// lockPaths locks the stripes of the given paths in a fixed order and
// returns the unlock function.
func (m *Manager) lockPaths(paths ...string) func() {
	idx := make([]int, 0, len(paths))
	for _, p := range paths {
		h := fnv.New32a()
		h.Write([]byte(p))
		idx = append(idx, int(h.Sum32()%uint32(len(m.stripes))))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		m.stripes[i].Lock()
	}
	return func() {
		for _, i := range slices.Backward(idx) {
			m.stripes[i].Unlock()
		}
	}
}

// newID returns a sortable unique id: creation time, then randomness.
func newID(t time.Time) string {
	var b [6]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return short)
	return fmt.Sprintf("cp_%012x%s", t.UnixMilli(), hex.EncodeToString(b[:]))
}

// recover settles changes left pending by a crash between recording a
// write and confirming it. Must be called before c is shared.
func (c *Checkpoint) recover(ctx context.Context, changes []Change) error {
	for _, ch := range changes {
		if !ch.Pending {
			continue
		}
		var b Batch
		cur, _, err := c.m.capture(ch.Path)
		if err != nil {
			return err
		}
		settled := ch
		settled.Pending = false
		switch {
		case ch.Op == OpRename:
			from, _, err := c.m.capture(ch.From)
			if err != nil {
				return err
			}
			if from.Same(ch.FromBefore) && cur.Same(ch.Before) { // rename never happened
				dst, src := c.files[ch.Path], c.files[ch.From]
				dst.Post, src.Post = ch.Before, ch.FromBefore
				b = Batch{Files: []FileRecord{dst, src}, DropChanges: []int64{ch.Seq}}
			} else {
				b = Batch{Changes: []Change{settled}}
			}
		case cur.Same(ch.Before) && !cur.Same(ch.After): // write never landed
			rec := c.files[ch.Path]
			rec.Post = ch.Before
			b = Batch{Files: []FileRecord{rec}, DropChanges: []int64{ch.Seq}}
		default:
			// Landed, or someone changed the file since: either way the
			// recorded Post stands and Undo's conflict check protects
			// any foreign edit.
			b = Batch{Changes: []Change{settled}}
		}
		if err := c.m.store.Commit(ctx, c.info.ID, b); err != nil {
			return err
		}
		for _, f := range b.Files {
			c.files[f.Path] = f
		}
		c.m.log.Info("checkpoint: settled interrupted change", "checkpoint", c.info.ID, "path", ch.Path,
			"op", ch.Op, "rolled_back", len(b.DropChanges) > 0)
	}
	return nil
}
