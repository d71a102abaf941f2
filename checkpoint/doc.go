// Package checkpoint snapshots files before an agent changes them, so
// that every change can be reviewed, kept or undone, file by file or hunk
// by hunk, even after the host restarts.
//
// # Model
//
// A [Manager] joins a workspace ([Files], satisfied by *safety.Workspace)
// and a [Store]. [Manager.Begin] opens a [Checkpoint]; open one per agent
// run, or one per turn for finer undo. The agent's file tools mutate
// through the checkpoint — [Checkpoint.WriteFile], [Checkpoint.Remove],
// [Checkpoint.Rename], or [Checkpoint.Snapshot] and [Checkpoint.Record]
// around a shell command — each naming the tool [Call] responsible.
//
// Before the first mutation of a file in a checkpoint its pre-image is
// stored: content-addressed by sha256 (so identical contents are stored
// once), "did not exist" for a new file, permission bits kept. A rename
// records both ends. After every agent write the post-image is recorded
// too, so Undo can tell the agent's work from anyone else's. A directory
// is covered through its files: Snapshot of a directory takes every file
// beneath it, and Record finds the files (and empty directories) that
// appeared in it, so a removed or moved folder comes back whole and a
// created one goes. A symbolic link the agent makes is recorded and
// removed by Undo; a link is never a pre-image, as it could not be put
// back.
//
// # Undo never destroys work the agent did not do
//
// [Checkpoint.Undo] restores every touched file to its pre-image, removes
// the files and directories the agent created, and skips — reporting a
// [*ConflictError] that matches [ErrConflict] — any file someone else
// changed since the agent's last write (or between two agent writes).
// [UndoOptions.Force] overrides after the user has seen the conflict.
// [Checkpoint.UndoFile] does the same for one file; [Checkpoint.Keep]
// accepts everything. Paths inside .git are refused outright
// ([ErrProtectedPath]): a checkpoint never reads or writes the user's
// repository metadata. Every restore is an atomic write through Files.
//
// # Review
//
// [Checkpoint.Diff] returns per-file unified diffs and "+N −N" stats;
// [Checkpoint.Calls] the same stats per tool call, for UI badges.
// [Checkpoint.Hunks] splits a file's change into hunks (changes within
// 2×[ContextLines] lines of each other merge, distant ones stay separate);
// [Checkpoint.AcceptHunk] folds one into the baseline and
// [Checkpoint.RejectHunk] reverts it on disk, keeping the others.
//
// # Crash safety
//
// Each mutation is write-ahead: the pre-image, the intended post-image and
// a pending [Change] are committed to the store in one transaction, then
// the file is written atomically, then the change is confirmed. If the
// process dies in between, [Manager.Open] looks at the file and either
// confirms the change or rolls the record back. A shell command's files
// are snapshotted with [Checkpoint.SnapshotFor], which marks the call in
// flight until [Checkpoint.Record]: if the process dies while the command
// runs, or the record cannot be saved, what the files hold afterwards is
// taken as the command's work, so undo restores a file it deleted or
// chmodded. [Manager.Recover] settles all of this at start, and removes
// the temporary files of writes killed before their rename. Undo puts a
// regular file back in place of a link, never writing through the link.
// The package's tests kill
// a writer with SIGKILL at random moments and check that every file is
// whole and that undoing every checkpoint restores the original tree.
//
// # Stores
//
// Stores with a database driver live in their own packages, so that
// importing checkpoint links none: sqlitestore.Open keeps one SQLite file
// (modernc.org/sqlite, pure Go, WAL, versioned schema migrations) that
// survives restarts; keep it outside the workspace. pgstore.Open keeps
// checkpoints in PostgreSQL, so that any worker of a fleet can undo them.
// [NewMemoryStore] is for tests and for hosts that need no undo across
// restarts. All three pass the same conformance suite.
//
// Snapshot cost depends on the edited file only, never on the size of the
// repository. The benchmarks in checkpoint/internal/storebench measure, on a
// 10,000-file workspace in one run, Begin + write of one file + Undo with
// each store against the shadow-git checkpoint other agents take (git add
// -A && git commit with a separate git dir, without even restoring the
// file), with and without git's fsync.
package checkpoint
