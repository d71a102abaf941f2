package safety

import (
	"errors"
	"strconv"
)

// Sentinel errors for workspace paths. Every error the Workspace returns for
// a refused path is a *PathError wrapping one of these, so callers can branch
// with errors.Is and still show the specific reason.
var (
	// ErrInvalidPath: the path string itself is unacceptable (empty, control
	// or invisible characters, ~user, too long, a malformed file:// URL, a
	// symlink loop). Fix the spelling; no file system state can make it valid.
	ErrInvalidPath = errors.New("invalid path")

	// ErrOutsideWorkspace: the path, after expanding ~ and following every
	// symlink, ends outside the workspace root.
	ErrOutsideWorkspace = errors.New("path is outside the workspace")

	// ErrPathChanged: the path resolved to a different place at write time
	// than when it was checked moments before (a directory or symlink was
	// swapped concurrently). Nothing was written; check again and retry.
	ErrPathChanged = errors.New("path changed between check and use")

	// ErrNotDirectory: a working directory (OpChdir) that is not an existing
	// directory.
	ErrNotDirectory = errors.New("not a directory")

	// ErrNotRegular: a device, named pipe or socket. Reading one can block
	// forever or touch hardware; writing one is never a file edit.
	ErrNotRegular = errors.New("not a regular file or directory")

	// ErrRootOperation: an operation that would replace or remove the
	// workspace root itself.
	ErrRootOperation = errors.New("operation on the workspace root")
)

// PathError records a refused workspace path: the operation, the path exactly
// as the caller gave it, the sentinel kind, and a human-readable detail.
type PathError struct {
	Op     string // "check", "open", "write", "remove", …
	Path   string // as given by the caller
	Err    error  // one of the sentinels above, or an fs error from the OS
	Detail string // what exactly was wrong, and what to do about it
}

func (e *PathError) Error() string {
	s := "safety: " + e.Op + " " + strconv.Quote(e.Path) + ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *PathError) Unwrap() error { return e.Err }
