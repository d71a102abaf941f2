package search

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync/atomic"
)

// DirOpener opens a directory of the workspace; *safety.Workspace's Open
// is one. Search given one lists each directory once through a handle and
// opens the directory's files and subdirectories relative to it (see
// openAt): one system call per file or directory instead of one per path
// component, and the same confinement, since only single names without
// '/' are opened, never following a symlink.
type DirOpener func(dir string) (*os.File, error)

// dirHandle is an open directory shared by the walker, which lists it and
// opens its subdirectories, and the workers reading its files; the last
// one to let go closes it.
type dirHandle struct {
	f    *os.File
	fd   int // f's descriptor, valid while a reference is held
	refs atomic.Int32
}

// newDirHandle wraps f (nil when err is set) with one reference, the
// walker's.
func newDirHandle(f *os.File, err error) *dirHandle {
	if err != nil || f == nil {
		return nil
	}
	h := &dirHandle{f: f, fd: -1}
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { h.fd = int(fd) })
	}
	h.refs.Store(1)
	return h
}

func (h *dirHandle) acquire() *dirHandle {
	if h != nil {
		h.refs.Add(1)
	}
	return h
}

func (h *dirHandle) release() {
	if h != nil && h.refs.Add(-1) == 0 {
		h.f.Close()
	}
}

// readDir lists the directory, sorted by name.
func (h *dirHandle) readDir() ([]fs.DirEntry, error) {
	list, err := h.f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return list, nil
}
