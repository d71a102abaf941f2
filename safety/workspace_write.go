package safety

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// WriteFile replaces the file at path with data, atomically: readers see the
// old content or the new, never a mix, and a crash or a failed write leaves
// the old file untouched. Missing parent directories are created (0o755
// before umask). A new file gets perm (before umask); an existing file keeps
// its permission bits. A final symlink is followed: the target is replaced
// and the link stays.
//
// It refuses (with a *PathError) whatever Check denies, and re-validates at
// write time: the target directory is opened through the workspace's
// os.Root and held, then the path is resolved again and must still lead to
// that very directory. A symlink or directory swapped in between the check
// and the write therefore yields ErrOutsideWorkspace or ErrPathChanged and
// writes nothing. Confirm-level paths are written: asking a human is the
// caller's job.
//
// Writing replaces the file's inode, so other hard links to it keep the old
// content (Check reports Confirm for such files).
func (w *Workspace) WriteFile(path string, data []byte, perm fs.FileMode) error {
	pc, err := w.use("write", path, OpWrite, true)
	if err != nil {
		w.log.Warn("safety: write refused", "path", path, "err", err.Error())
		return err
	}
	if w.beforeWrite != nil {
		w.beforeWrite(pc.Rel)
	}
	dirRel, base := splitRel(pc.Rel)
	if err := w.osRoot.MkdirAll(native(dirRel), 0o755); err != nil {
		return w.ioErr("write", path, OpWrite, true, pc, err)
	}
	dir, err := w.osRoot.OpenRoot(native(dirRel))
	if err != nil {
		return w.ioErr("write", path, OpWrite, true, pc, err)
	}
	defer dir.Close()
	if err := w.revalidate(path, pc, dir); err != nil {
		w.log.Warn("safety: write refused at write time", "path", path, "err", err.Error())
		return err
	}

	mode := perm
	switch fi, err := dir.Lstat(base); {
	case err == nil && fi.Mode().IsRegular():
		mode = fi.Mode().Perm()
	case err == nil && fi.IsDir():
		return &PathError{Op: "write", Path: path, Err: fs.ErrExist, Detail: pc.Rel + " is a directory"}
	case err == nil:
		return &PathError{Op: "write", Path: path, Err: fs.ErrPermission, Detail: pc.Rel + " is not a regular file"}
	case !errors.Is(err, fs.ErrNotExist):
		return &PathError{Op: "write", Path: path, Err: err}
	}

	tmp, err := writeTemp(dir, data, perm, mode)
	if err != nil {
		return &PathError{Op: "write", Path: path, Err: err, Detail: "writing the temporary file failed; the original is unchanged"}
	}
	if err := dir.Rename(tmp, base); err != nil {
		dir.Remove(tmp)
		return &PathError{Op: "write", Path: path, Err: err, Detail: "replacing the file failed; the original is unchanged"}
	}
	// Persist the rename itself. The new content is already durable; if
	// this fails the caller learns the write may not survive a crash.
	if d, err := dir.Open("."); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return &PathError{Op: "write", Path: path, Err: err, Detail: "written, but syncing the directory failed"}
		}
	}
	return nil
}

// revalidate proves that dir, opened through os.Root after the check, is the
// directory path leads to now: the path must resolve to the same place as at
// check time, and that place's parent must be the very directory we hold.
// After this, the write goes to a pinned directory handle, so later swaps
// of any component cannot redirect it.
func (w *Workspace) revalidate(path string, before PathCheck, dir *os.Root) error {
	now, pe := w.check(path, OpWrite, true, false)
	if pe != nil {
		pe.Op = "write"
		return pe
	}
	if now.Resolved != before.Resolved {
		return &PathError{Op: "write", Path: path, Err: ErrPathChanged,
			Detail: fmt.Sprintf("resolved to %s when checked and to %s when writing", before.Rel, now.Rel)}
	}
	held, err := dir.Stat(".")
	if err != nil {
		return &PathError{Op: "write", Path: path, Err: err}
	}
	named, err := os.Lstat(filepath.Dir(now.Resolved))
	if err != nil || !os.SameFile(held, named) {
		return &PathError{Op: "write", Path: path, Err: ErrPathChanged,
			Detail: "the directory " + path + " is in was replaced while writing; check again and retry"}
	}
	return nil
}

// writeTemp writes data to a new uniquely named file in dir, sets its mode
// and syncs it, returning its name. On failure nothing is left behind.
func writeTemp(dir *os.Root, data []byte, createPerm, mode fs.FileMode) (string, error) {
	var f *os.File
	var name string
	for range 10 {
		var rnd [8]byte
		rand.Read(rnd[:])
		name = ".tether-" + hex.EncodeToString(rnd[:]) + ".tmp"
		var err error
		f, err = dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, createPerm)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	if f == nil {
		return "", errors.New("could not create a unique temporary file")
	}
	_, err := f.Write(data)
	if err == nil && mode != createPerm {
		err = f.Chmod(mode) // through the descriptor: no path race
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dir.Remove(name)
		return "", err
	}
	return name, nil
}

// splitRel splits a checked relative path into its directory and name.
func splitRel(rel string) (dir, base string) {
	return path.Dir(rel), path.Base(rel)
}
