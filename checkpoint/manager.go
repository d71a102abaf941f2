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
	root    string // Files' workspace root, if it reports one
	store   Store
	log     *slog.Logger
	maxSize int64
	maxTree int // regular files one directory snapshot may cover
	now     func() time.Time
	owner   string // this process, as named in in-flight markers

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

// WithMaxTreeFiles sets how many regular files a snapshot of one
// directory (rm -rf dir, a moved folder) may cover; a larger directory is
// refused whole with ErrTooLarge. The default is DefaultMaxTreeFiles.
func WithMaxTreeFiles(n int) Option {
	return func(m *Manager) error {
		if n <= 0 {
			return fmt.Errorf("checkpoint: WithMaxTreeFiles(%d): the limit must be positive", n)
		}
		m.maxTree = n
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
// keeps checkpoints in store (sqlitestore.Open or pgstore.Open for undo
// that survives a restart, NewMemoryStore for tests). The caller closes the store.
func New(files Files, store Store, opts ...Option) (*Manager, error) {
	if files == nil {
		return nil, errors.New("checkpoint: New: nil Files; pass a *safety.Workspace")
	}
	if store == nil {
		return nil, errors.New("checkpoint: New: nil Store; pass sqlitestore.Open(ctx, path) or NewMemoryStore()")
	}
	m := &Manager{
		files:   files,
		store:   store,
		log:     slog.New(slog.DiscardHandler),
		maxSize: DefaultMaxFileSize,
		maxTree: DefaultMaxTreeFiles,
		now:     time.Now,
		owner:   processOwner(),
		open:    map[string]*Checkpoint{},
	}
	for _, o := range opts {
		if err := o(m); err != nil {
			return nil, err
		}
	}
	if r, ok := files.(rooter); ok {
		m.root = r.Root()
	}
	return m, nil
}

// Store returns the manager's store.
func (m *Manager) Store() Store { return m.store }

// Begin opens a new checkpoint. Call it once per agent run, or once per
// turn for finer undo: every checkpoint undoes independently.
func (m *Manager) Begin(ctx context.Context, session, label string) (*Checkpoint, error) {
	info := Info{ID: newID(m.now()), Session: session, Label: label, Created: m.now(), State: StateOpen, Workspace: m.root}
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
	if info.Workspace != "" && m.root != "" && info.Workspace != m.root {
		return nil, fmt.Errorf("%w: %s was taken in %s, this manager serves %s", ErrWrongWorkspace, id, info.Workspace, m.root)
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
		c.deleted = true
	}
	return m.store.Delete(ctx, id)
}

// Prune deletes every checkpoint created before the given time that is
// kept or undone, with the pre-images only they used, and returns how many
// it deleted. Open checkpoints are never pruned: they can still be undone.
// Hosts call it now and then to bound the store's size.
func (m *Manager) Prune(ctx context.Context, before time.Time) (int, error) {
	list, err := m.store.List(ctx, "")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, i := range list {
		if i.State == StateOpen || !i.Created.Before(before) {
			continue
		}
		if m.root != "" && i.Workspace != "" && i.Workspace != m.root {
			continue // another workspace's history is not ours to prune
		}
		if err := m.Delete(ctx, i.ID); err != nil {
			return n, err
		}
		n++
	}
	if n > 0 {
		m.log.Info("checkpoint: pruned", "checkpoints", n, "before", before)
	}
	return n, nil
}

// release drops the cached handle of a checkpoint that can no longer
// change, so a long-running host does not accumulate them; Open reloads
// it from the store if asked.
func (m *Manager) release(id string) {
	m.mu.Lock()
	delete(m.open, id)
	m.mu.Unlock()
}

// UndoSince undoes checkpoint id and every later checkpoint of the same
// session, newest first: "go back to before this turn". Kept checkpoints
// are left alone (their files then usually conflict and are reported).
// It stops at the first error other than a conflict; conflicts from all
// checkpoints are gathered into one *ConflictError.
func (m *Manager) UndoSince(ctx context.Context, id string, opts UndoOptions) (UndoReport, error) {
	info, err := m.store.Info(ctx, id)
	if err != nil {
		return UndoReport{}, err
	}
	list, err := m.store.List(ctx, info.Session)
	if err != nil {
		return UndoReport{}, err
	}
	start := slices.IndexFunc(list, func(i Info) bool { return i.ID == id })
	var total UndoReport
	for _, i := range slices.Backward(list[start:]) {
		if i.State == StateKept {
			continue
		}
		c, err := m.Open(ctx, i.ID)
		if err != nil {
			return total, err
		}
		rep, err := c.Undo(ctx, opts)
		total.Restored = append(total.Restored, rep.Restored...)
		total.Removed = append(total.Removed, rep.Removed...)
		total.Unchanged = append(total.Unchanged, rep.Unchanged...)
		total.Skipped = append(total.Skipped, rep.Skipped...)
		if err != nil && !errors.Is(err, ErrConflict) {
			return total, err
		}
	}
	if len(total.Skipped) > 0 {
		return total, &ConflictError{Skipped: slices.Clone(total.Skipped)}
	}
	return total, nil
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
		c.settled = c.settled || ch.Op != OpSnapshot || ownerGone(ch.From)
		if ch.Op == OpSnapshot {
			if ownerGone(ch.From) {
				// A call that was running when its process died.
				c.noteMarkers([]Change{ch})
				c.inflight[ch.Path].failed = true
			}
			continue
		}
		c.removeTornTemps(ctx, ch)
		b := c.settle(ch)
		if err := c.commit(ctx, b); err != nil {
			return err
		}
		c.m.log.Info("checkpoint: settled interrupted change", "checkpoint", c.info.ID, "path", ch.Path,
			"op", ch.Op, "rolled_back", len(b.DropChanges) > 0)
	}
	c.removeDeadTemps()
	c.settleFailed(ctx)
	return nil
}

// settle looks at the disk to decide what became of a pending change and
// returns the batch that records it: the change dropped and the records'
// Post put back if the operation did not happen, the change confirmed
// otherwise. When the disk matches neither side (someone changed the file
// since, or it cannot be read) the change is confirmed: the recorded Post
// then differs from the disk and Undo's conflict check protects that
// other edit.
func (c *Checkpoint) settle(ch Change) Batch {
	landed := ch
	landed.Pending = false
	confirm := Batch{Changes: []Change{landed}}
	cur, _, err := c.m.capture(ch.Path)
	if err != nil {
		return confirm
	}
	if ch.Op == OpRename {
		from, _, err := c.m.capture(ch.From)
		if err != nil || !from.Same(ch.FromBefore) || !cur.Same(ch.Before) {
			return confirm
		}
		dst, src := c.files[ch.Path], c.files[ch.From]
		dst.Post, src.Post = ch.Before, ch.FromBefore
		return Batch{Files: []FileRecord{dst, src}, DropChanges: []int64{ch.Seq}}
	}
	if !cur.Same(ch.Before) || cur.Same(ch.After) {
		return confirm
	}
	rec := c.files[ch.Path]
	rec.Post = ch.Before
	return Batch{Files: []FileRecord{rec}, DropChanges: []int64{ch.Seq}}
}
