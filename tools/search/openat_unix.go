//go:build unix

package search

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Files and directories below a directory handle are opened by single
// name, relative to the handle, never following a symlink (O_NOFOLLOW):
// a name swapped for a symlink since the walk listed it fails to open
// instead of leading outside the workspace.

// openAt opens the regular file name (a single path element) in dir
// without following a symlink and without blocking on a FIFO swapped in
// since the walk saw a regular file there.
func openAt(dir *os.File, name string) (*os.File, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var oerr error
	err = rc.Control(func(dfd uintptr) {
		fd, oerr = unix.Openat(int(dfd), name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	})
	if err != nil {
		return nil, err
	}
	if oerr != nil {
		return nil, &os.PathError{Op: "openat", Path: name, Err: oerr}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openSubdir opens the directory name in h, or returns nil.
func openSubdir(h *dirHandle, name string) *dirHandle {
	if h.fd < 0 {
		return nil
	}
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(h.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_DIRECTORY, 0)
	})
	if err != nil {
		return nil
	}
	return newDirHandle(os.NewFile(uintptr(fd), name), nil)
}

// readAt reads the regular file name in h into buf (reusing its memory)
// through a bare descriptor: no *os.File, so no poller registration or
// finalizer per file. It reads the first block and stops there if the
// block holds a NUL byte; otherwise it reads the rest. Files over limit
// are not read.
func readAt(h *dirHandle, name string, limit int64, buf []byte) ([]byte, fileKind) {
	if h.fd < 0 {
		return buf[:0], kindUnreadable
	}
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(h.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	})
	if err != nil {
		return buf[:0], kindUnreadable
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return buf[:0], kindUnreadable
	}
	return readAll(func(p []byte) (int, error) {
		return ignoringEINTR(func() (int, error) { return unix.Read(fd, p) })
	}, st.Size, limit, buf)
}

func ignoringEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// haveOpenAt says openAt works on this system.
const haveOpenAt = true
