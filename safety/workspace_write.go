package safety

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/tetherdev/tether/internal/faultpoint"
	"github.com/tetherdev/tether/internal/procid"
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
	if f, sub, ok := w.route(path); ok {
		return asWritten(f.ws.WriteFile(sub, data, perm), path)
	}
	if strings.HasSuffix(path, "/") {
		return &PathError{Op: "write", Path: path, Err: ErrInvalidPath, Detail: "ends with \"/\", which names a directory; drop it to write a file"}
	}
	pc, err := w.use("write", path, OpWrite, true)
	if err != nil {
		w.log.Warn("safety: write refused", "path", path, "err", err.Error())
		return err
	}
	dirRel, base := splitRel(pc.Rel)
	made := w.missingDirs(dirRel)
	if err := w.osRoot.MkdirAll(native(dirRel), 0o755); err != nil {
		w.removeMade(made)
		return w.ioErr("write", path, OpWrite, true, pc, err)
	}
	// A write that fails leaves no trace: not even the directories it
	// made for the file.
	ok := false
	defer func() {
		if !ok {
			w.removeMade(made)
		}
	}()
	dir, err := w.pinParent("write", path, OpWrite, true, pc)
	if err != nil {
		w.log.Warn("safety: write refused at write time", "path", path, "err", err.Error())
		return err
	}
	defer dir.Close()

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
	faultpoint.Reached(faultpoint.WriteRenaming)
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
			ok = true // the file is in place: its directories stay
			return &PathError{Op: "write", Path: path, Err: err, Detail: "written, but syncing the directory failed"}
		}
	}
	ok = true
	return nil
}

// missingDirs returns the directories of the workspace-relative dirRel
// that do not exist yet, innermost first.
func (w *Workspace) missingDirs(dirRel string) []string {
	var out []string
	for d := dirRel; d != "." && d != "" && d != "/"; d = path.Dir(d) {
		if _, err := w.osRoot.Lstat(native(d)); err == nil {
			break
		}
		out = append(out, d)
	}
	return out
}

// removeMade removes the directories a failed write made, innermost
// first, each only if still empty (someone may have put a file there
// meanwhile; Remove then fails and the directory stays).
func (w *Workspace) removeMade(dirs []string) {
	for _, d := range dirs {
		if w.osRoot.Remove(native(d)) != nil {
			return
		}
	}
}

// writeTemp writes data to a new uniquely named file in dir, sets its mode
// and syncs it, returning its name. On failure nothing is left behind.
func writeTemp(dir *os.Root, data []byte, createPerm, mode fs.FileMode) (string, error) {
	var f *os.File
	var name string
	for range 10 {
		var rnd [8]byte
		rand.Read(rnd[:])
		// The writer's pid and start time in the name let a later
		// process tell the temporary file of a write whose process died
		// (and remove it) from one still being written.
		name = ".tether-" + procid.Self() + "-" + hex.EncodeToString(rnd[:]) + ".tmp"
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
