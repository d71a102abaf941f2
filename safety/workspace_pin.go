package safety

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Checking a path and then using it by name leaves a window in which a
// concurrent process (a command the agent started, say) can swap a
// directory for a symlink. os.Root already guarantees the swap cannot lead
// outside the workspace; the helpers here also guarantee that it cannot
// lead somewhere else inside it (from notes.txt to .env, from src/ to
// .git/hooks/) without being noticed. Each first takes hold of the object
// by descriptor, then resolves the path again and requires that the name
// still leads to the very object held. After that, the operation works on
// the descriptor, so later swaps change nothing.

// pinAttempts bounds retries when the object held and the object named
// differ. An editor saving the file (an atomic replace) makes them differ
// once, harmlessly, and a retry succeeds; a process swapping paths over and
// over keeps failing and gets ErrPathChanged.
const pinAttempts = 4

// retryChanged runs f until it succeeds, fails with something other than
// ErrPathChanged, or has failed pinAttempts times.
func retryChanged[T any](f func() (T, error)) (T, error) {
	var v T
	var err error
	for range pinAttempts {
		if v, err = f(); !errors.Is(err, ErrPathChanged) {
			return v, err
		}
	}
	return v, err
}

// pinParent opens the directory that holds pc's final component through
// os.Root and proves it is the directory the path leads to now. The caller
// closes it.
func (w *Workspace) pinParent(opName, path string, op Op, followFinal bool, before PathCheck) (*os.Root, error) {
	return retryChanged(func() (*os.Root, error) { return w.pinParentOnce(opName, path, op, followFinal, before) })
}

func (w *Workspace) pinParentOnce(opName, path string, op Op, followFinal bool, before PathCheck) (*os.Root, error) {
	dirRel, _ := splitRel(before.Rel)
	dir, err := w.osRoot.OpenRoot(native(dirRel))
	if err != nil {
		return nil, w.ioErr(opName, path, op, followFinal, before, err)
	}
	held, err := dir.Stat(".")
	if err == nil {
		err = w.sameAsNamed(opName, path, op, followFinal, before, held, filepath.Dir)
	}
	if err != nil {
		dir.Close()
		return nil, err
	}
	return dir, nil
}

// sameAsNamed resolves path again and checks that it still leads to the
// same place as before, and that the object there (or, with pick =
// filepath.Dir, its parent directory) is held.
func (w *Workspace) sameAsNamed(opName, path string, op Op, followFinal bool, before PathCheck, held os.FileInfo, pick func(string) string) error {
	now, pe := w.check(path, op, followFinal, false)
	if pe != nil {
		pe.Op = opName
		return pe
	}
	if now.Resolved != before.Resolved {
		return &PathError{Op: opName, Path: path, Err: ErrPathChanged,
			Detail: fmt.Sprintf("resolved to %s when checked and to %s when used; check again and retry", before.Rel, now.Rel)}
	}
	named, err := os.Lstat(pick(now.Resolved))
	if err != nil || !os.SameFile(held, named) {
		return &PathError{Op: opName, Path: path, Err: ErrPathChanged,
			Detail: "a directory or file on the path was replaced while in use; check again and retry"}
	}
	return nil
}

// openVerified opens the checked path read-only and proves the file opened
// is the one the path names.
func (w *Workspace) openVerified(opName, path string, pc PathCheck) (*os.File, error) {
	return retryChanged(func() (*os.File, error) { return w.openVerifiedOnce(opName, path, pc) })
}

func (w *Workspace) openVerifiedOnce(opName, path string, pc PathCheck) (*os.File, error) {
	f, err := w.osRoot.Open(native(pc.Rel))
	if err != nil {
		return nil, w.ioErr(opName, path, OpRead, true, pc, err)
	}
	held, err := f.Stat()
	if err == nil {
		err = w.sameAsNamed(opName, path, OpRead, true, pc, held, func(p string) string { return p })
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
