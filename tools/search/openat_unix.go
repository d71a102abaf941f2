//go:build unix

package search

import (
	"os"

	"golang.org/x/sys/unix"
)

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

// haveOpenAt says openAt works on this system.
const haveOpenAt = true
