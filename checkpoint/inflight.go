package checkpoint

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Calls in flight. A shell command changes files by means the checkpoint
// does not see, so its pre-images are taken before it runs (SnapshotFor)
// and its changes read from the disk after (Record). Between the two the
// store holds a marker, a pending OpSnapshot change naming the call. If
// Record never comes (the process was killed while the command ran) or
// its result could not be saved (the store's disk is full), the marker
// stays, and the checkpoint settles it from the disk: whatever the marked
// paths hold then is taken as the call's work. Undo therefore restores a
// file the command deleted or chmodded even after a restart, instead of
// reporting it as someone else's change.
//
// The price is that an edit someone makes to such a path between the
// crash and the settlement is taken for the call's. Settlement happens on
// the next Open after a restart, and in a live process at the next
// mutation, Diff or Undo after a failed Record.

// marker is one path's in-flight record.
type marker struct {
	ch Change
	// failed: Record did not save the call's change (or the process that
	// took the snapshot is gone), so the disk decides.
	failed bool
	// done: Record saved the change but the marker could not be dropped;
	// the next commit drops it.
	done bool
}

// SnapshotFor is Snapshot on behalf of call, which is about to change
// name by means the checkpoint does not see (a shell command). Until
// Record(call, name), a crash or a failed Record leaves the change to be
// settled from the disk, so undo still covers it: the next Open after a
// restart (or Manager.Recover), or the next mutation, Diff or Undo in
// this process, takes what the path holds then as the call's work.
func (c *Checkpoint) SnapshotFor(ctx context.Context, call Call, name string) error {
	return c.snapshot(ctx, name, &call)
}

// newMarker returns the marker change for rel at seq, and the seq of an
// older marker of rel to drop, or 0. c.mu must be held.
func (c *Checkpoint) newMarker(rel string, call Call, seq int64) (Change, int64) {
	// From names the process running the call (see owner.go).
	ch := Change{Checkpoint: c.info.ID, Seq: seq, Path: rel, From: c.m.owner, Op: OpSnapshot, Call: call, Pending: true, Time: c.m.now()}
	if old := c.inflight[rel]; old != nil {
		return ch, old.ch.Seq
	}
	return ch, 0
}

// noteMarkers remembers committed markers. c.mu must be held.
func (c *Checkpoint) noteMarkers(chs []Change) {
	for _, ch := range chs {
		if ch.Op != OpSnapshot {
			continue
		}
		if c.inflight == nil {
			c.inflight = map[string]*marker{}
		}
		c.inflight[ch.Path] = &marker{ch: ch}
	}
}

// finishMarker adds the drop of rel's marker to b, the batch that records
// the call's change. c.mu must be held.
func (c *Checkpoint) finishMarker(rel string, b *Batch) {
	if m := c.inflight[rel]; m != nil {
		b.DropChanges = append(b.DropChanges, m.ch.Seq)
	}
}

// recorded forgets rel's marker after its batch committed, or marks it
// failed when the batch did not. c.mu must be held.
func (c *Checkpoint) recorded(rel string, err error) {
	m := c.inflight[rel]
	if m == nil {
		return
	}
	if err != nil {
		m.failed = true
		c.m.log.Warn("checkpoint: a command's change was not saved; the disk will be taken as its work",
			"checkpoint", c.info.ID, "path", rel, "err", err)
		return
	}
	delete(c.inflight, rel)
}

// dropMarker commits the drop of rel's marker when Record found nothing
// to record. If that commit fails the marker is dropped with the next
// one. c.mu must be held.
func (c *Checkpoint) dropMarker(ctx context.Context, rel string) {
	m := c.inflight[rel]
	if m == nil {
		return
	}
	if err := c.commit(context.WithoutCancel(ctx), Batch{DropChanges: []int64{m.ch.Seq}}); err != nil {
		m.done = true
		return
	}
	delete(c.inflight, rel)
}

// pendingDrops returns the seqs of markers whose drop is overdue, for
// commit to add to the next batch. c.mu must be held.
func (c *Checkpoint) pendingDrops() []int64 {
	var seqs []int64
	for _, m := range c.inflight {
		if m.done {
			seqs = append(seqs, m.ch.Seq)
		}
	}
	return seqs
}

// forgetDone drops the done markers once a batch carrying their drops
// committed. c.mu must be held.
func (c *Checkpoint) forgetDone() {
	for rel, m := range c.inflight {
		if m.done {
			delete(c.inflight, rel)
		}
	}
}

// settleFailed takes the disk as the work of every call whose marker
// failed: each path the marker covers (the path itself, and the pending
// records beneath it for a directory) gets its current content as Post.
// If that cannot be saved either, the records change in memory, so an
// Undo in this process still covers the paths, and the marker stays in
// the store for the next Open. c.mu must be held.
func (c *Checkpoint) settleFailed(ctx context.Context) {
	for rel, m := range c.inflight {
		if !m.failed {
			continue
		}
		b := Batch{Blobs: map[string][]byte{}, DropChanges: []int64{m.ch.Seq}}
		if !c.settleDir(rel, m.ch.Call, &b) {
			c.settleFiles(rel, m.ch.Call, &b)
		}
		if err := c.commit(context.WithoutCancel(ctx), b); err != nil {
			for _, f := range b.Files {
				c.files[f.Path] = f
			}
			m.failed = false
			c.m.log.Error("checkpoint: settled an interrupted command's change in memory only; the store refused it",
				"checkpoint", c.info.ID, "path", rel, "err", err)
			continue
		}
		delete(c.inflight, rel)
		c.m.log.Info("checkpoint: took the disk as an interrupted command's work", "checkpoint", c.info.ID,
			"path", rel, "call", m.ch.Call.ID, "files", len(b.Files))
	}
}

// settleDir adds to b what a call whose marker is on rel did to rel as a
// directory, as Record would: a directory it created is recorded as one
// (undo removes it once empty), with every file that appeared beneath it,
// and the pending files beneath it take what they hold now. It reports
// false when rel is not a directory, or is one that replaced a file
// (which undo does not take back). c.mu must be held.
func (c *Checkpoint) settleDir(rel string, call Call, b *Batch) bool {
	if !c.m.isDir(rel) {
		return false
	}
	if rec, ok := c.files[rel]; ok && rec.Status == FilePending {
		if rec.Pre.Exists {
			return false
		}
		if !slices.Contains(rec.CreatedDirs, rel) {
			rec.CreatedDirs = append(slices.Clone(rec.CreatedDirs), rel)
			rec.Post = Image{}
			b.Files = append(b.Files, rec)
		}
	}
	nf, nc := len(b.Files), len(b.Changes)
	// No bound on the command's end here: the process that ran it died
	// at an unknown time, so a change since cannot be told apart.
	if err := c.recordTree(rel, call, b, time.Time{}); err != nil {
		// Too many files, or unreadable: the pending records beneath it
		// still take what they hold.
		b.Files, b.Changes = b.Files[:nf], b.Changes[:nc]
		c.m.log.Warn("checkpoint: an interrupted command's directory could not be read whole", "checkpoint", c.info.ID, "path", rel, "err", err)
		c.settleFiles(rel, call, b)
	}
	return true
}

// settleFiles adds to b the current content of rel and of the pending
// records beneath it, as the work of call. c.mu must be held.
func (c *Checkpoint) settleFiles(rel string, call Call, b *Batch) {
	for p, rec := range c.files {
		if rec.Status != FilePending || (p != rel && !strings.HasPrefix(p, rel+"/")) || isDirRecord(rec) {
			continue
		}
		cur, data, err := c.m.captureAfter(p)
		if err != nil || cur.Identical(rec.Post) {
			continue
		}
		if cur.Exists {
			b.Blobs[cur.Hash] = data
		}
		b.Changes = append(b.Changes, Change{Checkpoint: c.info.ID, Seq: c.nextSeq, Path: p, Op: OpRecord,
			Call: call, Before: rec.Post, After: cur, Time: c.m.now()})
		c.nextSeq++
		rec.Post = cur
		b.Files = append(b.Files, rec)
	}
}

// Recover opens every open checkpoint of this workspace, which settles
// what a process killed in the middle of a run left: writes interrupted
// between their record and their rename (and their temporary files), and
// commands that were running (see SnapshotFor). Call it once at start,
// before the first run, so that undo covers the interrupted run and its
// leftovers are gone. It returns, oldest first, the checkpoints in which
// something was settled.
func (m *Manager) Recover(ctx context.Context) ([]Info, error) {
	list, err := m.store.List(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, i := range list {
		if i.State != StateOpen || m.root != "" && i.Workspace != "" && i.Workspace != m.root {
			continue
		}
		c, err := m.Open(ctx, i.ID)
		if err != nil {
			return out, err
		}
		c.mu.Lock()
		settled := c.settled
		c.mu.Unlock()
		if settled {
			out = append(out, c.Info())
		} else {
			// Nothing to settle: no need to hold its records in memory
			// until a run or an undo asks for it.
			m.release(i.ID)
		}
	}
	return out, nil
}
