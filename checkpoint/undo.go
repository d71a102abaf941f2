package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/tetherdev/tether/internal/faultpoint"
)

// UndoOptions controls Undo and UndoFile. The zero value is the safe
// default.
type UndoOptions struct {
	// Force restores files even when someone else changed them since the
	// agent's last write, discarding that other work. Use it only after
	// showing the user the ConflictError.
	Force bool
}

// UndoReport says what an undo did to each file it looked at.
type UndoReport struct {
	Restored  []string `json:"restored,omitempty"`  // written back to the pre-image
	Removed   []string `json:"removed,omitempty"`   // created by the agent, now deleted
	Unchanged []string `json:"unchanged,omitempty"` // already equal to the pre-image
	Skipped   []Skip   `json:"skipped,omitempty"`   // changed by someone else; left alone
}

// Undo restores every file the checkpoint touched to its pre-image and
// removes the files (and directories) the agent created. A file that
// someone else changed since the agent's last write is skipped, reported
// in the UndoReport and in the returned *ConflictError (errors.Is
// ErrConflict); everything else is still restored. Once every file is
// restored the checkpoint is undone and takes no more writes. Undo is
// idempotent and may be called again, for instance with Force.
func (c *Checkpoint) Undo(ctx context.Context, opts UndoOptions) (UndoReport, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.undo(ctx, opts, nil)
}

// UndoFile restores one file as Undo would, leaving the checkpoint's other
// files as they are.
func (c *Checkpoint) UndoFile(ctx context.Context, name string, opts UndoOptions) (UndoReport, error) {
	rel, err := key(c.m.files, name)
	if err != nil {
		return UndoReport{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.files[rel]; !ok {
		return UndoReport{}, &PathError{Op: "undo", Path: rel, Err: fmt.Errorf("%w: the checkpoint did not touch this file", ErrNotFound)}
	}
	return c.undo(ctx, opts, func(p string) bool { return p == rel })
}

// undo restores the pending files selected by only (all when nil).
// c.mu must be held.
func (c *Checkpoint) undo(ctx context.Context, opts UndoOptions, only func(string) bool) (UndoReport, error) {
	var rep UndoReport
	if c.deleted {
		return rep, fmt.Errorf("%w (checkpoint %s was deleted)", ErrClosed, c.info.ID)
	}
	if c.info.State == StateKept {
		return rep, fmt.Errorf("%w (checkpoint %s was kept)", ErrClosed, c.info.ID)
	}
	c.settleFailed(ctx)
	recs := c.sortedFiles()
	// All files first, then one commit of their records: a crash before the
	// commit leaves restored files equal to their pre-images under pending
	// records, which the next Undo marks undone without writing them.
	var done []FileRecord
	flush := func(state State) error {
		if len(done) == 0 && state == "" {
			return nil
		}
		return c.commit(context.WithoutCancel(ctx), Batch{Files: done, State: state})
	}
	// Restore in reverse order of first touch so that, after a rename, the
	// destination is cleared before the source comes back.
	for _, rec := range slices.Backward(recs) {
		if rec.Status != FilePending || (only != nil && !only(rec.Path)) {
			continue
		}
		err := ctx.Err()
		if err == nil {
			var undone bool
			if rec, undone, err = c.undoFile(ctx, rec, opts, &rep); undone {
				done = append(done, rec)
				faultpoint.Reached(faultpoint.UndoRestored)
			}
		}
		if err != nil {
			if ferr := flush(""); ferr != nil {
				c.m.log.Error("checkpoint: undo records not saved; the next Undo will settle them", "checkpoint", c.info.ID, "err", ferr)
			}
			return rep, err
		}
	}
	var state State
	if only == nil && len(rep.Skipped) == 0 && c.info.State == StateOpen {
		state = StateUndone
	}
	if err := flush(state); err != nil {
		return rep, err
	}
	// Directories the agent created go last, innermost first, and only if
	// empty: removing a directory never removes anyone's file.
	var dirs []string
	for _, rec := range done {
		if !rec.Pre.Exists {
			dirs = append(dirs, rec.CreatedDirs...)
		}
	}
	slices.Sort(dirs)
	for _, d := range slices.Backward(slices.Compact(dirs)) {
		if c.m.isDir(d) { // never a file someone put where the directory was
			_ = c.m.files.Remove(native(d)) // fails harmlessly when not empty or already gone
		}
	}
	c.m.log.Info("checkpoint: undo", "checkpoint", c.info.ID, "restored", len(rep.Restored), "removed", len(rep.Removed),
		"unchanged", len(rep.Unchanged), "skipped", len(rep.Skipped), "force", opts.Force)
	if len(rep.Skipped) > 0 {
		return rep, &ConflictError{Skipped: slices.Clone(rep.Skipped)}
	}
	return rep, nil
}

// undoFile restores one file and returns its record marked undone, or
// reports it skipped (undone false). The caller commits the record.
func (c *Checkpoint) undoFile(ctx context.Context, rec FileRecord, opts UndoOptions, rep *UndoReport) (_ FileRecord, undone bool, _ error) {
	defer c.m.lockPaths(rec.Path)()
	if isDirRecord(rec) {
		// A directory the agent created: it goes with the other created
		// directories, once empty. It is not a file, so no report line.
		rec.Status = FileUndone
		return rec, true, nil
	}
	cur, _, err := c.m.captureAfter(rec.Path)
	if err != nil && !(opts.Force && errors.Is(err, ErrNotRegular)) {
		rep.Skipped = append(rep.Skipped, Skip{Path: rec.Path, Reason: err.Error()})
		c.m.log.Warn("checkpoint: undo skipped file", "checkpoint", c.info.ID, "path", rec.Path, "err", err)
		return rec, false, nil
	}
	switch {
	case err == nil && cur.Same(rec.Pre) && (cur.Mode == rec.Pre.Mode || cur.Mode != rec.Post.Mode):
		// Only a mode the agent set is reverted; anyone else's chmod stays.
		rep.Unchanged = append(rep.Unchanged, rec.Path)
	case err == nil && cur.Same(rec.Post) && !rec.Tainted, opts.Force:
		if opts.Force && !(cur.Same(rec.Post) && !rec.Tainted) {
			c.m.log.Warn("checkpoint: forced undo overwrites changes made outside the agent", "checkpoint", c.info.ID, "path", rec.Path)
		}
		if err := c.restore(ctx, rec); err != nil {
			return rec, false, &PathError{Op: "undo", Path: rec.Path, Err: err}
		}
		if rec.Pre.Exists {
			rep.Restored = append(rep.Restored, rec.Path)
		} else {
			rep.Removed = append(rep.Removed, rec.Path)
		}
	default:
		reason := "changed since the agent's last write"
		if rec.Tainted {
			reason = "changed outside the agent between its writes"
		}
		rep.Skipped = append(rep.Skipped, Skip{Path: rec.Path, Reason: reason})
		c.m.log.Warn("checkpoint: undo skipped file to keep work the agent did not do", "checkpoint", c.info.ID, "path", rec.Path, "reason", reason)
		return rec, false, nil
	}
	rec.Status = FileUndone
	rec.Post = rec.Pre
	rec.Tainted = false
	return rec, true, nil
}

// restore puts rec's pre-image on disk.
func (c *Checkpoint) restore(ctx context.Context, rec FileRecord) error {
	if !rec.Pre.Exists {
		if err := c.m.files.Remove(native(rec.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := c.m.store.Blob(ctx, rec.Pre.Hash)
	if err != nil {
		return fmt.Errorf("reading pre-image: %w", err)
	}
	if h := hashOf(data); h != rec.Pre.Hash {
		return fmt.Errorf("pre-image in the store is corrupt (sha256 %s, want %s); file left as it is", h, rec.Pre.Hash)
	}
	if fi, err := c.m.files.Lstat(native(rec.Path)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// The file was replaced by a link: put the file back in the
		// link's place, never write through it onto the link's target.
		if err := c.m.files.Remove(native(rec.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return c.m.put(rec.Path, data, rec.Pre.Mode)
}

// Keep accepts every change: the checkpoint closes and Undo refuses from
// now on. Manager.Delete then frees its pre-images.
func (c *Checkpoint) Keep(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deleted {
		return fmt.Errorf("%w (checkpoint %s was deleted)", ErrClosed, c.info.ID)
	}
	if c.info.State == StateUndone {
		return fmt.Errorf("%w (checkpoint %s was undone)", ErrClosed, c.info.ID)
	}
	b := Batch{State: StateKept}
	for _, rec := range c.files {
		if rec.Status == FilePending {
			rec.Status = FileKept
			b.Files = append(b.Files, rec)
		}
	}
	if err := c.commit(ctx, b); err != nil {
		return err
	}
	c.m.log.Info("checkpoint: kept", "checkpoint", c.info.ID, "files", len(b.Files))
	return nil
}

// KeepFile accepts the changes to one file; Undo leaves it alone from now
// on. A later agent write to it starts from the kept content. For a
// directory it accepts every file the checkpoint recorded beneath it.
func (c *Checkpoint) KeepFile(ctx context.Context, name string) error {
	rel, err := key(c.m.files, name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var b Batch
	for p, rec := range c.files {
		if (p == rel || strings.HasPrefix(p, rel+"/")) && rec.Status == FilePending {
			rec.Status = FileKept
			b.Files = append(b.Files, rec)
		}
	}
	delete(c.trees, rel)
	if len(b.Files) == 0 {
		if _, ok := c.files[rel]; ok {
			return nil // already kept or undone
		}
		if !c.m.isDir(rel) {
			return &PathError{Op: "keep", Path: rel, Err: fmt.Errorf("%w: the checkpoint did not touch this file", ErrNotFound)}
		}
		return nil
	}
	return c.commit(ctx, b)
}
