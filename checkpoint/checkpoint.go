package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/internal/faultpoint"
)

// Checkpoint records every file an agent mutates through it, so that the
// mutations can be diffed, kept or undone. Its methods are safe for
// concurrent use. Get one from Manager.Begin or Manager.Open.
//
// Each mutation follows the same crash-safe protocol: (1) the pre-image
// (on first touch) and the intended post-image are committed to the store
// together with a pending Change; (2) the file is written atomically; (3)
// the change is confirmed. A crash between (1) and (3) is settled by
// Manager.Open, which looks at the file to see whether (2) happened.
type Checkpoint struct {
	m *Manager

	mu      sync.Mutex
	info    Info
	files   map[string]FileRecord
	nextSeq int64
	deleted bool // Manager.Delete dropped it from the store
	// trees maps a directory snapshotted and not yet recorded to the
	// directories it held (itself included), so that Record can tell the
	// directories the agent created inside it. In memory only: Snapshot
	// and Record bracket one call.
	trees map[string][]string
	// inflight maps a path snapshotted for a call (SnapshotFor) to its
	// marker, until Record drops it; see inflight.go.
	inflight map[string]*marker
	// settled: loading it settled changes a killed process left.
	settled bool
}

// ID returns the checkpoint's id, for Manager.Open after a restart.
func (c *Checkpoint) ID() string { return c.info.ID }

// Info returns the checkpoint's current description.
func (c *Checkpoint) Info() Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// Records returns the records of every file the checkpoint touched, in
// the order they were first touched.
func (c *Checkpoint) Records() []FileRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sortedFiles()
}

func (c *Checkpoint) sortedFiles() []FileRecord {
	out := make([]FileRecord, 0, len(c.files))
	for _, f := range c.files {
		f.CreatedDirs = slices.Clone(f.CreatedDirs)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b FileRecord) int {
		if a.Order != b.Order {
			return int(a.Order - b.Order)
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out
}

// writable checks the state; c.mu must be held.
func (c *Checkpoint) writable() error {
	if c.deleted {
		return fmt.Errorf("%w (checkpoint %s was deleted)", ErrClosed, c.info.ID)
	}
	if c.info.State != StateOpen {
		return fmt.Errorf("%w (checkpoint %s is %s)", ErrClosed, c.info.ID, c.info.State)
	}
	return nil
}

// touch returns rel's record as of now and rel's current image, taking the
// pre-image on first touch (its blob is added to b). A file changed by
// someone else since the agent's last write is marked Tainted, so Undo
// will not silently discard that foreign edit. c.mu and rel's stripe must
// be held.
func (c *Checkpoint) touch(rel string, seq int64, b *Batch) (FileRecord, Image, error) {
	cur, data, err := c.m.capture(rel)
	if err != nil {
		return FileRecord{}, Image{}, err
	}
	rec, ok := c.files[rel]
	if !ok || rec.Status != FilePending {
		// First touch, or touched again after the file was kept or undone:
		// what is on disk now is the baseline.
		rec = FileRecord{Checkpoint: c.info.ID, Path: rel, Order: seq, Pre: cur, Post: cur, Status: FilePending}
		if cur.Exists {
			b.Blobs[cur.Hash] = data
		}
	} else if !cur.Same(rec.Post) {
		rec.Tainted = true
		if cur.Exists {
			b.Blobs[cur.Hash] = data
		}
		c.m.log.Warn("checkpoint: file changed outside the agent between its writes; undo will skip it unless forced",
			"checkpoint", c.info.ID, "path", rel)
	}
	return rec, cur, nil
}

// commit applies b to the store and, on success, to the cached records.
func (c *Checkpoint) commit(ctx context.Context, b Batch) error {
	drops := c.pendingDrops()
	if len(drops) > 0 {
		b.DropChanges = append(slices.Clone(b.DropChanges), drops...)
	}
	if err := c.m.store.Commit(ctx, c.info.ID, b); err != nil {
		return err
	}
	if len(drops) > 0 {
		c.forgetDone()
	}
	for _, f := range b.Files {
		c.files[f.Path] = f
	}
	if b.State != "" {
		c.info.State = b.State
		if b.State != StateOpen {
			c.m.release(c.info.ID)
		}
	}
	return nil
}

// mutation runs the write-ahead protocol for one change: commit b (whose
// Changes[0] is the pending change), perform do, then confirm the change.
// If do fails, the disk decides (settle): usually the Files contract made
// the failed operation a no-op and the records go back to what they were;
// if it landed after all (say, only the directory sync failed) the change
// is kept, so the records always describe the disk.
func (c *Checkpoint) mutation(ctx context.Context, b Batch, do func() error) error {
	if err := c.commit(ctx, b); err != nil {
		return err
	}
	ch := b.Changes[0]
	c.nextSeq = ch.Seq + 1
	faultpoint.Reached(faultpoint.ChangeLogged)
	// The later commits use a context without cancellation: the caller's
	// may be what made do fail, and the store must not be left describing
	// an operation that did not happen.
	if err := do(); err != nil {
		if serr := c.commit(context.WithoutCancel(ctx), c.settle(ch)); serr != nil {
			c.m.log.Error("checkpoint: outcome of a failed change not recorded; it will be settled on next Open",
				"checkpoint", c.info.ID, "path", ch.Path, "err", serr)
		}
		return &PathError{Op: string(ch.Op), Path: ch.Path, Err: err}
	}
	faultpoint.Reached(faultpoint.ChangeApplied)
	ch.Pending = false
	if err := c.commit(context.WithoutCancel(ctx), Batch{Changes: []Change{ch}}); err != nil {
		// The file and the records agree (Post was written ahead); only the
		// confirmation is missing, and Open settles it from the disk.
		c.m.log.Warn("checkpoint: change applied but its confirmation was not recorded",
			"checkpoint", c.info.ID, "path", ch.Path, "err", err)
	}
	return nil
}

// WriteFile writes data to name on behalf of call, snapshotting the file
// first if this checkpoint has not touched it yet. An existing file keeps
// its mode; a new one gets perm (0644 if zero). Missing parent directories
// are created and remembered, so Undo removes them again.
func (c *Checkpoint) WriteFile(ctx context.Context, call Call, name string, data []byte, perm fs.FileMode) error {
	rel, err := key(c.m.files, name)
	if err != nil {
		return err
	}
	if int64(len(data)) > c.m.maxSize {
		return &PathError{Op: "write", Path: rel, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), c.m.maxSize)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writable(); err != nil {
		return err
	}
	c.settleFailed(ctx)
	defer c.m.lockPaths(rel)()

	seq := c.nextSeq
	b := Batch{Blobs: map[string][]byte{}}
	rec, cur, err := c.touch(rel, seq, &b)
	if err != nil {
		return err
	}
	mode := perm.Perm()
	if cur.Exists {
		mode = cur.Mode
	} else if mode == 0 {
		mode = 0o644
	}
	if !cur.Exists {
		for _, d := range c.m.missingParents(rel) {
			if !slices.Contains(rec.CreatedDirs, d) {
				rec.CreatedDirs = append(rec.CreatedDirs, d)
			}
		}
	}
	h := hashOf(data)
	b.Blobs[h] = data
	after := Image{Exists: true, Hash: h, Mode: mode}
	rec.Post = after
	b.Files = []FileRecord{rec}
	b.Changes = []Change{{Checkpoint: c.info.ID, Seq: seq, Path: rel, Op: OpWrite, Call: call,
		Before: cur, After: after, Pending: true, Time: c.m.now()}}
	return c.mutation(ctx, b, func() error { return c.m.put(rel, data, mode) })
}

// Remove deletes name on behalf of call, snapshotting it first.
func (c *Checkpoint) Remove(ctx context.Context, call Call, name string) error {
	rel, err := keyNoFollow(c.m.files, name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writable(); err != nil {
		return err
	}
	c.settleFailed(ctx)
	defer c.m.lockPaths(rel)()

	seq := c.nextSeq
	b := Batch{Blobs: map[string][]byte{}}
	rec, cur, err := c.touch(rel, seq, &b)
	if err != nil {
		return err
	}
	if !cur.Exists {
		return &PathError{Op: "remove", Path: rel, Err: fs.ErrNotExist}
	}
	rec.Post = Image{}
	b.Files = []FileRecord{rec}
	b.Changes = []Change{{Checkpoint: c.info.ID, Seq: seq, Path: rel, Op: OpRemove, Call: call,
		Before: cur, Pending: true, Time: c.m.now()}}
	return c.mutation(ctx, b, func() error { return c.m.files.Remove(native(rel)) })
}

// Rename moves oldname to newname on behalf of call. Both ends are
// recorded: Undo puts the file back at oldname and restores (or removes)
// whatever was at newname.
func (c *Checkpoint) Rename(ctx context.Context, call Call, oldname, newname string) error {
	from, err := keyNoFollow(c.m.files, oldname)
	if err != nil {
		return err
	}
	to, err := keyNoFollow(c.m.files, newname)
	if err != nil {
		return err
	}
	if from == to {
		return &PathError{Op: "rename", Path: from, Err: fmt.Errorf("%w: source and destination are the same file", ErrInvalidPath)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writable(); err != nil {
		return err
	}
	c.settleFailed(ctx)
	defer c.m.lockPaths(from, to)()

	seq := c.nextSeq
	b := Batch{Blobs: map[string][]byte{}}
	src, srcCur, err := c.touch(from, seq, &b)
	if err != nil {
		return err
	}
	if !srcCur.Exists {
		return &PathError{Op: "rename", Path: from, Err: fs.ErrNotExist}
	}
	dst, dstCur, err := c.touch(to, seq, &b)
	if err != nil {
		return err
	}
	newDirs := c.m.missingParents(to)
	for _, d := range newDirs {
		if !slices.Contains(dst.CreatedDirs, d) {
			dst.CreatedDirs = append(dst.CreatedDirs, d)
		}
	}
	src.Post = Image{}
	dst.Post = srcCur
	dst.RenamedFrom = from
	b.Files = []FileRecord{src, dst}
	b.Changes = []Change{{Checkpoint: c.info.ID, Seq: seq, Path: to, From: from, Op: OpRename, Call: call,
		Before: dstCur, After: srcCur, FromBefore: srcCur, Pending: true, Time: c.m.now()}}
	return c.mutation(ctx, b, func() error {
		if len(newDirs) > 0 {
			if err := c.m.files.MkdirAll(native(path.Dir(to)), 0o755); err != nil {
				return err
			}
		}
		return c.m.files.Rename(native(from), native(to))
	})
}

// Snapshot takes name's pre-image now without changing it. Call it before
// the agent changes a file by other means (a shell command, a formatter),
// then Record afterwards. For a directory it snapshots every regular file
// beneath it (at most DefaultMaxTreeFiles, or WithMaxTreeFiles). Prefer
// SnapshotFor, which keeps the change in undo's reach if Record never
// comes.
func (c *Checkpoint) Snapshot(ctx context.Context, name string) error {
	return c.snapshot(ctx, name, nil)
}

// snapshot is Snapshot, with an in-flight marker for call when it is set.
func (c *Checkpoint) snapshot(ctx context.Context, name string, call *Call) error {
	rel, err := key(c.m.files, name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writable(); err != nil {
		return err
	}
	c.settleFailed(ctx)
	b := Batch{Blobs: map[string][]byte{}}
	if call != nil {
		mk, old := c.newMarker(rel, *call, c.nextSeq)
		b.Changes = []Change{mk}
		if old != 0 {
			b.DropChanges = []int64{old}
		}
	}
	if c.m.isDir(rel) {
		return c.snapshotTree(ctx, rel, b)
	}
	defer c.m.lockPaths(rel)()
	if rec, ok := c.files[rel]; !ok || rec.Status != FilePending {
		rec, _, err := c.touch(rel, c.nextSeq, &b)
		if err != nil {
			return err
		}
		rec.CreatedDirs = c.m.missingParents(rel)
		b.Files = []FileRecord{rec}
	}
	if len(b.Files) == 0 && len(b.Changes) == 0 {
		return nil
	}
	if err := c.commit(ctx, b); err != nil {
		return err
	}
	c.noteMarkers(b.Changes)
	c.nextSeq++
	return nil
}

// Record notes the current content of name, changed by call since
// Snapshot, as the agent's work: Undo will restore the snapshot, and Diff
// and the per-call stats include it. For a directory (then or now) it
// records every file changed, removed or created beneath it; a path that
// did not exist and is now a directory is recorded as a directory the
// agent created, which Undo removes once empty.
func (c *Checkpoint) Record(ctx context.Context, call Call, name string) error {
	since := time.Now() // the command has ended: see changedSince
	rel, err := key(c.m.files, name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writable(); err != nil {
		return err
	}
	// A link made since Snapshot: the snapshot is of the link's own name
	// (Snapshot follows links, so a name tracked as itself was no link
	// then), which key now resolves through the link, to a target that
	// may be tracked too. The name's own record wins.
	if nf, err := keyNoFollow(c.m.files, name); err == nil && nf != rel && c.tracked(nf) {
		rel = nf
	}
	if !c.tracked(rel) {
		return &PathError{Op: "record", Path: rel, Err: fmt.Errorf("%w: no snapshot of this file in the checkpoint; call Snapshot before changing it", ErrNotFound)}
	}
	if c.m.isDir(rel) || c.trees[rel] != nil || c.pendingUnder(rel) {
		return c.recordDir(ctx, call, rel, since)
	}
	defer c.m.lockPaths(rel)()
	rec := c.files[rel]
	if c.changedSince(rel, since) {
		c.dropMarker(ctx, rel)
		return nil
	}
	cur, data, err := c.m.captureAfter(rel)
	if err != nil {
		c.recorded(rel, err)
		return err
	}
	if cur.Identical(rec.Post) {
		c.dropMarker(ctx, rel)
		return nil // nothing changed
	}
	b := Batch{Blobs: map[string][]byte{}}
	if cur.Exists {
		b.Blobs[cur.Hash] = data
	}
	seq := c.nextSeq
	ch := Change{Checkpoint: c.info.ID, Seq: seq, Path: rel, Op: OpRecord, Call: call, Before: rec.Post, After: cur, Time: c.m.now()}
	rec.Post = cur
	b.Files, b.Changes = []FileRecord{rec}, []Change{ch}
	c.finishMarker(rel, &b)
	err = c.commit(ctx, b)
	c.recorded(rel, err)
	if err != nil {
		return err
	}
	c.nextSeq++
	return nil
}
