package checkpoint

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, for errors.Is.
var (
	// ErrNotFound: no checkpoint (or file record) with that id or path.
	ErrNotFound = errors.New("checkpoint: not found")
	// ErrClosed: the checkpoint was kept or undone and accepts no more writes.
	ErrClosed = errors.New("checkpoint: checkpoint is closed (kept or undone); begin a new one")
	// ErrConflict: a file changed outside the agent since the agent's last
	// write; the operation skipped it rather than destroy that work.
	ErrConflict = errors.New("checkpoint: file changed since the agent's last write")
	// ErrProtectedPath: the path is inside a .git directory, which is never
	// snapshotted, written or restored.
	ErrProtectedPath = errors.New("checkpoint: path is inside .git, which checkpoints never touch")
	// ErrInvalidPath: the path is empty, the workspace root, or escapes it.
	ErrInvalidPath = errors.New("checkpoint: invalid path")
	// ErrNotRegular: the path is a directory, symlink or device; only regular
	// files are snapshotted.
	ErrNotRegular = errors.New("checkpoint: not a regular file")
	// ErrTooLarge: the file is larger than Options.MaxFileSize.
	ErrTooLarge = errors.New("checkpoint: file too large to snapshot")
	// ErrBinary: hunks cannot be computed for a binary file; undo it whole.
	ErrBinary = errors.New("checkpoint: binary file has no line hunks")
	// ErrStaleHunk: the hunk id does not match the file's current diff
	// (the file or the baseline changed); list the hunks again.
	ErrStaleHunk = errors.New("checkpoint: hunk is stale; list the hunks again")
	// ErrWrongWorkspace: the checkpoint was taken in another workspace than
	// the one this Manager serves; undoing it here would write the wrong files.
	ErrWrongWorkspace = errors.New("checkpoint: checkpoint belongs to another workspace")
	// ErrSchemaTooNew: the store was written by a newer version of Tether.
	ErrSchemaTooNew = errors.New("checkpoint: store schema is newer than this program understands")
)

// Skip is one file an undo (or hunk operation) left alone, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ConflictError reports the files an Undo skipped because someone other
// than the agent changed them. It matches ErrConflict with errors.Is.
// The files that could be restored were restored.
type ConflictError struct {
	Skipped []Skip
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "checkpoint: %d file(s) changed since the agent's last write were left as they are (use Force to overwrite them):", len(e.Skipped))
	for _, s := range e.Skipped {
		fmt.Fprintf(&b, " %s (%s);", s.Path, s.Reason)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// PathError records the path an operation failed on.
type PathError struct {
	Op   string // "snapshot", "write", "remove", "rename", "undo", …
	Path string
	Err  error
}

func (e *PathError) Error() string {
	return "checkpoint: " + e.Op + " " + e.Path + ": " + e.Err.Error()
}
func (e *PathError) Unwrap() error { return e.Err }
