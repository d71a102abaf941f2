package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// Directories. A checkpoint restores regular files; a directory is covered
// through the files under it. Snapshot of a directory takes the pre-image
// of every regular file beneath it (so `rm -rf dir` or a moved directory
// can be undone file by file, the directories coming back with their
// files), and Record of a path that is a directory now records every file
// that appeared beneath it as created. A path that did not exist at
// Snapshot and is a directory at Record is kept as a directory record:
// Undo removes it (and the directories between it and the files created
// in it) once empty. Undo never removes a directory that holds anything,
// and symlinks and other non-regular files under a directory are neither
// snapshotted nor removed.

// DefaultMaxTreeFiles bounds the regular files one Snapshot or Record of
// a directory covers unless WithMaxTreeFiles says otherwise; past it the
// directory is refused with ErrTooLarge and nothing under it is recorded.
const DefaultMaxTreeFiles = 10_000

// MaxTreeBytes bounds the total size of the files one directory snapshot
// covers, since their pre-images are held in memory until committed.
const MaxTreeBytes = 256 << 20

// dirLister lists a directory: (*safety.Workspace).ReadDir. Without it a
// directory cannot be snapshotted (ErrNotRegular, as before).
type dirLister interface {
	ReadDir(name string) ([]fs.DirEntry, error)
}

// tree is what a directory held: its regular files and subdirectories,
// slash-separated, workspace-relative, sorted.
type tree struct {
	files, dirs []string
}

// walk lists the tree under the directory rel, refusing .git (never read)
// and more than MaxTreeFiles files.
func (m *Manager) walk(rel string) (tree, error) {
	l, ok := m.files.(dirLister)
	if !ok {
		return tree{}, &PathError{Op: "snapshot", Path: rel, Err: fmt.Errorf("%w (a directory; this Files cannot list it)", ErrNotRegular)}
	}
	var t tree
	var size int64
	pending := []string{rel}
	for len(pending) > 0 {
		dir := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		ents, err := l.ReadDir(native(dir))
		if err != nil {
			return tree{}, &PathError{Op: "snapshot", Path: dir, Err: err}
		}
		for _, e := range ents {
			p := path.Join(dir, e.Name())
			switch {
			case strings.EqualFold(e.Name(), ".git"):
				// the user's repository metadata is never part of a checkpoint
			case e.IsDir():
				t.dirs = append(t.dirs, p)
				pending = append(pending, p)
			case e.Type().IsRegular():
				if len(t.files) == m.maxTree {
					return tree{}, &PathError{Op: "snapshot", Path: rel, Err: fmt.Errorf("%w: more than %d files under this directory", ErrTooLarge, m.maxTree)}
				}
				if fi, err := e.Info(); err == nil {
					size += fi.Size()
				}
				if size > MaxTreeBytes {
					return tree{}, &PathError{Op: "snapshot", Path: rel, Err: fmt.Errorf("%w: more than %d bytes under this directory", ErrTooLarge, MaxTreeBytes)}
				}
				t.files = append(t.files, p)
			}
		}
	}
	slices.Sort(t.files)
	slices.Sort(t.dirs)
	return t, nil
}

// isDir reports whether rel is a directory now (not through a symlink).
func (m *Manager) isDir(rel string) bool {
	fi, err := m.files.Lstat(native(rel))
	return err == nil && fi.IsDir()
}

// isDirRecord reports a record standing for a directory the agent
// created: no content before or after, and its own path among the
// directories to remove.
func isDirRecord(rec FileRecord) bool {
	return !rec.Pre.Exists && !rec.Post.Exists && slices.Contains(rec.CreatedDirs, rec.Path)
}

// snapshotTree takes the pre-image of every file under the directory rel
// not already pending in c, committing them with what b already holds (an
// in-flight marker), and remembers which subdirectories existed,
// so that Record can tell the directories the agent creates. c.mu must
// be held.
func (c *Checkpoint) snapshotTree(ctx context.Context, rel string, b Batch) error {
	t, err := c.m.walk(rel)
	if err != nil {
		return err
	}
	defer c.m.lockPaths(t.files...)()
	for _, f := range t.files {
		if rec, ok := c.files[f]; ok && rec.Status == FilePending {
			continue
		}
		rec, _, err := c.touch(f, c.nextSeq, &b)
		if err != nil {
			if errors.Is(err, ErrNotRegular) {
				continue // replaced since the listing
			}
			return err
		}
		b.Files = append(b.Files, rec)
	}
	if len(b.Files) > 0 || len(b.Changes) > 0 {
		if err := c.commit(ctx, b); err != nil {
			return err
		}
		c.noteMarkers(b.Changes)
	}
	c.nextSeq++
	if c.trees == nil {
		c.trees = map[string][]string{}
	}
	c.trees[rel] = append([]string{rel}, t.dirs...)
	return nil
}

// recordTree records what call changed under rel since Snapshot: the
// pending files beneath it (changed or removed) and, when rel is a
// directory now, every file that appeared in it. It returns the batch to
// commit; rel's own record, if any, is the caller's. c.mu must be held.
//
// since, when set, is when the recording began, after the command ended:
// a file whose inode changed after it is someone else's work (see
// changedSince) and is left out.
func (c *Checkpoint) recordTree(rel string, call Call, b *Batch, since time.Time) error {
	var under []string
	for p, rec := range c.files {
		if rec.Status == FilePending && strings.HasPrefix(p, rel+"/") {
			under = append(under, p)
		}
	}
	// New files are looked for only where the directory's content before
	// is known: a tree taken by Snapshot, or a directory the agent made
	// (rec pending, nothing there before). Anything else found there may
	// be someone else's file, which undo must never delete.
	rec, ok := c.files[rel]
	made := ok && rec.Status == FilePending && !rec.Pre.Exists
	var t tree
	if c.m.isDir(rel) && (c.trees[rel] != nil || made) {
		var err error
		if t, err = c.m.walk(rel); err != nil {
			return err
		}
	}
	existed := c.trees[rel] // directories present at Snapshot; nil if rel was not one
	delete(c.trees, rel)
	for _, f := range t.files {
		if !slices.Contains(under, f) {
			under = append(under, f)
		}
	}
	// Directories made in it that hold no file of the agent's (mkdir -p
	// n/m) are recorded by themselves, so undo removes them too.
	for _, d := range t.dirs {
		if rec, ok := c.files[d]; (!ok || rec.Status != FilePending) && !slices.Contains(existed, d) {
			b.Files = append(b.Files, FileRecord{Checkpoint: c.info.ID, Path: d, Order: c.nextSeq, Status: FilePending, CreatedDirs: []string{d}})
		}
	}
	slices.Sort(under)
	defer c.m.lockPaths(under...)()
	for _, p := range under {
		if c.changedSince(p, since) {
			continue
		}
		rec, ok := c.files[p]
		if !ok || rec.Status != FilePending {
			rec = FileRecord{Checkpoint: c.info.ID, Path: p, Order: c.nextSeq, Status: FilePending}
			for d := path.Dir(p); d != rel && d != "."; d = path.Dir(d) {
				if !slices.Contains(existed, d) {
					rec.CreatedDirs = append([]string{d}, rec.CreatedDirs...)
				}
			}
		}
		cur, data, err := c.m.captureAfter(p)
		if err != nil {
			if errors.Is(err, ErrNotRegular) {
				continue
			}
			return err
		}
		if cur.Identical(rec.Post) && ok {
			continue
		}
		if cur.Exists {
			b.Blobs[cur.Hash] = data
		}
		b.Changes = append(b.Changes, Change{Checkpoint: c.info.ID, Seq: c.nextSeq, Path: p, Op: OpRecord, Call: call,
			Before: rec.Post, After: cur, Time: c.m.now()})
		rec.Post = cur
		b.Files = append(b.Files, rec)
		c.nextSeq++
	}
	return nil
}

// tracked reports a path Record may be called for: snapshotted (a file
// record still pending, or a directory whose tree was taken) or holding
// pending records beneath it. c.mu must be held.
func (c *Checkpoint) tracked(rel string) bool {
	rec, ok := c.files[rel]
	return ok && rec.Status == FilePending || c.trees[rel] != nil || c.pendingUnder(rel)
}

// pendingUnder reports pending records beneath the directory path rel.
// c.mu must be held.
func (c *Checkpoint) pendingUnder(rel string) bool {
	for p, rec := range c.files {
		if rec.Status == FilePending && strings.HasPrefix(p, rel+"/") {
			return true
		}
	}
	return false
}

// recordDir is Record for a path that is, or was at Snapshot, a
// directory. c.mu must be held.
func (c *Checkpoint) recordDir(ctx context.Context, call Call, rel string, since time.Time) error {
	b := Batch{Blobs: map[string][]byte{}}
	if rec, ok := c.files[rel]; ok && rec.Status == FilePending && c.m.isDir(rel) {
		if rec.Pre.Exists {
			// A file replaced by a directory: the file comes back only
			// once the directory is gone, which undo never forces.
			err := &PathError{Op: "record", Path: rel, Err: fmt.Errorf("%w: the file became a directory", ErrNotRegular)}
			c.recorded(rel, err)
			return err
		}
		if !slices.Contains(rec.CreatedDirs, rel) {
			rec.CreatedDirs = append(rec.CreatedDirs, rel)
			rec.Post = Image{}
			b.Files = append(b.Files, rec)
		}
	}
	if err := c.recordTree(rel, call, &b, since); err != nil {
		c.recorded(rel, err)
		return err
	}
	if len(b.Files) == 0 {
		c.dropMarker(ctx, rel)
		return nil
	}
	c.finishMarker(rel, &b)
	err := c.commit(ctx, b)
	c.recorded(rel, err)
	return err
}

// changedSince reports a path whose inode changed after since, the moment
// a Record began. Record is called once the command ended and its
// processes are gone, so such a change is not the command's: a file
// someone saved into a directory the command made, or an edit made just
// after it. The path is then left out of the record: a new file stays
// out of undo's reach (undo never removes it, nor the directory holding
// it), and a tracked file keeps its recorded content, so undo reports the
// later change as a conflict instead of discarding it.
//
// The kernel stamps the change time from a clock that lags the real time
// by at most a tick, never leads it, so a change time after since is a
// change after since. A change time in the future (a network file
// system's clock ahead of this one) proves nothing and is ignored. A file
// someone else creates while the command runs cannot be told from the
// command's own by any property Linux keeps (no creator is recorded), so
// it is still taken for the command's. c.mu must be held.
func (c *Checkpoint) changedSince(rel string, since time.Time) bool {
	if since.IsZero() {
		return false
	}
	fi, err := c.m.files.Lstat(native(rel))
	if err != nil {
		return false
	}
	ct, ok := changeTime(fi)
	if !ok || !ct.After(since) || ct.After(time.Now()) {
		return false
	}
	c.m.log.Warn("checkpoint: a file changed after the command ended is left out of its record; undo will not touch it",
		"checkpoint", c.info.ID, "path", rel, "changed", ct, "record_began", since)
	return true
}
