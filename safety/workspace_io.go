package safety

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The I/O methods below check the path (Deny → *PathError), then act through
// the os.Root on the workspace with the resolved relative path. They enforce
// confinement only; a Confirm verdict is the caller's to act on.

// use checks path for op and converts a Deny into an error tagged with the
// caller's operation name.
func (w *Workspace) use(opName, path string, op Op, followFinal bool) (PathCheck, error) {
	pc, pe := w.check(path, op, followFinal, true)
	if pe != nil {
		w.logCheck(path, op, pc)
		pe.Op = opName
		return pc, pe
	}
	if w.beforeUse != nil {
		w.beforeUse(opName, pc.Rel)
	}
	return pc, nil
}

// ioErr wraps an error from os.Root. When the root refused because the path
// changed since the check (a symlink swapped in), a fresh check says so: its
// error, wrapping ErrOutsideWorkspace or ErrInvalidPath, or ErrPathChanged
// when the path now resolves elsewhere inside.
func (w *Workspace) ioErr(opName, path string, op Op, followFinal bool, before PathCheck, err error) error {
	if err == nil {
		return nil
	}
	now, pe := w.check(path, op, followFinal, false)
	if pe != nil {
		pe.Op = opName
		w.log.Warn("safety: path changed under an operation", "op", opName, "path", path, "err", pe.Error())
		return pe
	}
	if now.Resolved != before.Resolved {
		w.log.Warn("safety: path changed under an operation", "op", opName, "path", path,
			"checked", before.Resolved, "now", now.Resolved)
		return &PathError{Op: opName, Path: path, Err: ErrPathChanged,
			Detail: fmt.Sprintf("resolved to %s when checked and to %s when used; check again and retry", before.Rel, now.Rel)}
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return &PathError{Op: opName, Path: path, Err: pathErr.Err}
	}
	return &PathError{Op: opName, Path: path, Err: err}
}

// native turns a checked relative path into the form os.Root wants.
func native(rel string) string { return filepath.FromSlash(rel) }

// Open opens path for reading.
func (w *Workspace) Open(path string) (*os.File, error) {
	if f, sub, ok := w.route(path); ok {
		file, err := f.ws.Open(sub)
		return file, asWritten(err, path)
	}
	pc, err := w.use("open", path, OpRead, true)
	if err != nil {
		return nil, err
	}
	return w.openVerified("open", path, pc)
}

// ReadFile reads the whole file at path.
func (w *Workspace) ReadFile(path string) ([]byte, error) {
	if f, sub, ok := w.route(path); ok {
		b, err := f.ws.ReadFile(sub)
		return b, asWritten(err, path)
	}
	pc, err := w.use("read", path, OpRead, true)
	if err != nil {
		return nil, err
	}
	f, err := w.openVerified("read", path, pc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, &PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// Stat describes the file path names, following symlinks.
func (w *Workspace) Stat(path string) (fs.FileInfo, error) {
	if f, sub, ok := w.route(path); ok {
		fi, err := f.ws.Stat(sub)
		return fi, asWritten(err, path)
	}
	pc, err := w.use("stat", path, OpRead, true)
	if err != nil {
		return nil, err
	}
	fi, err := w.osRoot.Stat(native(pc.Rel))
	if err != nil {
		return nil, w.ioErr("stat", path, OpRead, true, pc, err)
	}
	return fi, nil
}

// Lstat describes path without following a final symlink. The symlink
// itself must lie inside the workspace; its target may not.
func (w *Workspace) Lstat(path string) (fs.FileInfo, error) {
	if f, sub, ok := w.route(path); ok {
		fi, err := f.ws.Lstat(sub)
		return fi, asWritten(err, path)
	}
	pc, err := w.use("lstat", path, OpRead, false)
	if err != nil {
		return nil, err
	}
	fi, err := w.osRoot.Lstat(native(pc.Rel))
	if err != nil {
		return nil, w.ioErr("lstat", path, OpRead, false, pc, err)
	}
	return fi, nil
}

// ReadDir lists the directory at path, sorted by name.
func (w *Workspace) ReadDir(path string) ([]fs.DirEntry, error) {
	if f, sub, ok := w.route(path); ok {
		ents, err := f.ws.ReadDir(sub)
		return ents, asWritten(err, path)
	}
	pc, err := w.use("readdir", path, OpRead, true)
	if err != nil {
		return nil, err
	}
	ents, err := fs.ReadDir(w.osRoot.FS(), pc.Rel)
	if err != nil {
		return nil, w.ioErr("readdir", path, OpRead, true, pc, err)
	}
	return ents, nil
}

// MkdirAll creates the directory path and any missing parents.
func (w *Workspace) MkdirAll(path string, perm fs.FileMode) error {
	if f, sub, ok := w.route(path); ok {
		return asWritten(f.ws.MkdirAll(sub, perm), path)
	}
	pc, err := w.use("mkdir", path, OpWrite, true)
	if errors.Is(err, ErrRootOperation) {
		return nil // the root exists by construction
	}
	if err != nil {
		return err
	}
	return w.ioErr("mkdir", path, OpWrite, true, pc, w.osRoot.MkdirAll(native(pc.Rel), perm))
}

// Remove deletes the file or empty directory path. A final symlink is
// removed itself, not its target.
func (w *Workspace) Remove(path string) error {
	if f, sub, ok := w.route(path); ok {
		return asWritten(f.ws.Remove(sub), path)
	}
	pc, err := w.use("remove", path, OpWrite, false)
	if err != nil {
		return err
	}
	dir, err := w.pinParent("remove", path, OpWrite, false, pc)
	if err != nil {
		return err
	}
	defer dir.Close()
	_, base := splitRel(pc.Rel)
	if err := dir.Remove(base); err != nil {
		return w.ioErr("remove", path, OpWrite, false, pc, err)
	}
	return nil
}

// Chmod sets the permission bits of the file path, exactly (no umask):
// what a checkpoint needs to put back a mode a command changed. A final
// symlink is followed, as chmod(1) does; the parent directory is held and
// re-validated first, like Remove.
func (w *Workspace) Chmod(path string, mode fs.FileMode) error {
	if f, sub, ok := w.route(path); ok {
		return asWritten(f.ws.Chmod(sub, mode), path)
	}
	pc, err := w.use("chmod", path, OpWrite, true)
	if err != nil {
		return err
	}
	dir, err := w.pinParent("chmod", path, OpWrite, true, pc)
	if err != nil {
		return err
	}
	defer dir.Close()
	_, base := splitRel(pc.Rel)
	if err := dir.Chmod(base, mode.Perm()); err != nil {
		return w.ioErr("chmod", path, OpWrite, true, pc, err)
	}
	return nil
}

// Readlink returns the target of the symbolic link path, as written in
// the link (it may point anywhere; nothing is followed).
func (w *Workspace) Readlink(path string) (string, error) {
	if f, sub, ok := w.route(path); ok {
		return f.ws.Readlink(sub)
	}
	pc, err := w.use("readlink", path, OpRead, false)
	if err != nil {
		return "", err
	}
	dir, err := w.pinParent("readlink", path, OpRead, false, pc)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	_, base := splitRel(pc.Rel)
	target, err := dir.Readlink(base)
	if err != nil {
		return "", w.ioErr("readlink", path, OpRead, false, pc, err)
	}
	return target, nil
}

// Rename moves oldpath to newpath; both must be inside the workspace. A
// final symlink is moved itself, not its target. Both parent directories
// are held and re-validated first; within one directory the rename then
// happens on the held directory, so a concurrent swap cannot redirect it.
// Across directories it goes by name through os.Root (the standard library
// has no two-directory rename on held handles): still confined, with a
// window of microseconds in which a swap could redirect it inside the
// workspace. In a multi-root workspace both paths must be in the same root:
// a move between roots could not be one atomic rename.
func (w *Workspace) Rename(oldpath, newpath string) error {
	fromF, fromSub, fromOK := w.route(oldpath)
	toF, toSub, toOK := w.route(newpath)
	switch {
	case fromOK != toOK || fromF.name != toF.name:
		return &PathError{Op: "rename", Path: newpath, Err: ErrInvalidPath,
			Detail: fmt.Sprintf("%s and %s are in different workspace folders; write the file in its new folder and remove the old one instead", oldpath, newpath)}
	case fromOK:
		err := fromF.ws.Rename(fromSub, toSub)
		if pe := (*PathError)(nil); errors.As(err, &pe) && pe.Path == fromSub {
			return asWritten(err, oldpath)
		}
		return asWritten(err, newpath)
	}
	from, err := w.use("rename", oldpath, OpWrite, false)
	if err != nil {
		return err
	}
	to, err := w.use("rename", newpath, OpWrite, false)
	if err != nil {
		return err
	}
	fromDir, err := w.pinParent("rename", oldpath, OpWrite, false, from)
	if err != nil {
		return err
	}
	defer fromDir.Close()
	toDir, err := w.pinParent("rename", newpath, OpWrite, false, to)
	if err != nil {
		return err
	}
	defer toDir.Close()
	fromParent, fromBase := splitRel(from.Rel)
	toParent, toBase := splitRel(to.Rel)
	if fromParent == toParent {
		err = fromDir.Rename(fromBase, toBase)
	} else {
		err = w.osRoot.Rename(native(from.Rel), native(to.Rel))
	}
	if err == nil {
		return nil
	}
	// Report whichever end changed since the check, else the OS error.
	if e := w.ioErr("rename", newpath, OpWrite, false, to, err); errors.Is(e, ErrOutsideWorkspace) || errors.Is(e, ErrPathChanged) {
		return e
	}
	return w.ioErr("rename", oldpath, OpWrite, false, from, err)
}

// FS returns a read-only view of the workspace for fs.WalkDir, fs.Glob and
// friends, confined by the os.Root: symlinks that lead outside fail to
// open. It does not apply sensitivity; tools that show file contents to a
// model should Check each path (Secret → ask first). It covers the
// whole workspace: the folders added with WithFolder appear as directories
// of their names, each confined to its own root.
func (w *Workspace) FS() fs.FS {
	if len(w.folders) == 0 {
		return w.osRoot.FS()
	}
	return foldersFS{w}
}
