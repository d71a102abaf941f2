// Package faultpoint names the places where a crash is most likely to
// leave half-done work (between a pre-image and its effect, between a
// temporary file and its rename, in the middle of an undo), so that crash
// tests can kill the process exactly there instead of guessing with
// timers.
//
// In a normal build Reached does nothing and the compiler removes the
// call. Only a binary built with the tetherfault build tag looks at the
// TETHER_FAULT environment variable:
//
//	go build -tags tetherfault -o /tmp/headless ./examples/tether-headless
//	TETHER_FAULT=write.renaming /tmp/headless ...
//
// TETHER_FAULT holds one point name, optionally followed by "#N" to act on
// the N-th time the point is reached (the first by default). When it is
// reached the process writes "faultpoint: NAME" on standard error and
// sends itself SIGKILL: no deferred function, no cleanup and no buffered
// write runs, as when the machine's owner or the OOM killer ends it.
package faultpoint

// The points, in the order a tool call meets them.
const (
	// CommandApproved: a command was approved and nothing of it happened
	// yet, not even its pre-images.
	CommandApproved = "command.approved"
	// CommandSnapshotted: the pre-images and the in-flight mark of a
	// command are saved; the command has not started.
	CommandSnapshotted = "command.snapshotted"
	// CommandExited: the command and its children ended; what it changed
	// is not recorded yet.
	CommandExited = "command.exited"
	// ChangeLogged: a file change's pre-image is saved with its in-flight
	// mark (a file tool's) or as a pending change with the intended
	// content (Checkpoint.WriteFile); the file is not written yet.
	ChangeLogged = "change.logged"
	// WriteRenaming: an atomic write's temporary file is complete and
	// synced beside its target; the rename has not happened.
	WriteRenaming = "write.renaming"
	// ChangeApplied: a file change is on disk; its record or confirmation
	// is not saved yet.
	ChangeApplied = "change.applied"
	// UndoRestored: undo put one file back; the records saying so are not
	// saved yet.
	UndoRestored = "undo.restored"
)
