package checkpoint

import "fmt"

// Decided says how far the review of a checkpoint has come: its state and
// its files counted by what was decided about them. A checkpoint stays
// StateOpen while it is reviewed file by file or hunk by hunk (KeepFile,
// UndoFile, AcceptHunk, RejectHunk), so its State alone cannot tell a
// checkpoint nobody has looked at from one whose every change was decided.
type Decided struct {
	State   State
	Pending int // files with changes still to keep or undo
	Kept    int // files kept whole (KeepFile, Keep, or every hunk accepted)
	Undone  int // files restored whole (UndoFile, Undo)
	// Settled are pending files with nothing left to decide: every hunk
	// was rejected, or some accepted and the rest rejected, or the agent
	// wrote back what was there. Diff no longer shows them.
	Settled int
}

// Decided counts the checkpoint's files by what was decided about them.
func (c *Checkpoint) Decided() Decided {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := Decided{State: c.info.State}
	for _, r := range c.files {
		switch {
		case r.Status == FileKept:
			d.Kept++
		case r.Status == FileUndone:
			d.Undone++
		case r.Pre.Same(r.Post):
			d.Settled++
		default:
			d.Pending++
		}
	}
	return d
}

// String is the review state in a word or two, for a UI's list of
// checkpoints: "kept" or "undone" once every change went that way (or the
// checkpoint was closed so), "decided" once every change is decided but
// not all alike, "partly decided" while some are and some are not,
// "open" before any is, and "empty" for a checkpoint that touched nothing.
func (d Decided) String() string {
	decided := d.Kept + d.Undone + d.Settled
	switch {
	case d.State == StateKept || d.State == StateUndone:
		return string(d.State)
	case decided+d.Pending == 0:
		return "empty"
	case d.Pending == 0 && d.Kept == decided:
		return string(StateKept)
	case d.Pending == 0 && d.Undone == decided:
		return string(StateUndone)
	case d.Pending == 0:
		return "decided"
	case decided > 0:
		return fmt.Sprintf("partly decided (%d of %d files)", decided, decided+d.Pending)
	}
	return string(StateOpen)
}
