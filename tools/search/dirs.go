package search

import (
	"os"
	"sync"
	"sync/atomic"
)

// DirOpener opens a directory of the workspace; *safety.Workspace's Open
// is one. Search given one opens each directory once through it and each
// file relative to that handle (see openAt): one system call per file
// instead of one per path component, and the same confinement, since only
// single names without '/' are opened, never following a symlink.
type DirOpener func(dir string) (*os.File, error)

// dirHandle is an open directory shared by the walker and the workers
// reading its files; the last one to let go closes it.
type dirHandle struct {
	f    *os.File
	refs atomic.Int32
}

func (h *dirHandle) release() {
	if h.refs.Add(-1) == 0 {
		h.f.Close()
	}
}

// dirHandles hands out handles for directories in the walk. Only the
// directories on the walker's current path and those with files still
// queued are open at once.
type dirHandles struct {
	open DirOpener
	mu   sync.Mutex
	m    map[string]*dirHandle
}

// acquire returns dir's handle with a reference for one queued file, or
// nil when the directory cannot be opened (its files are then read the
// slow way, through the FS).
func (d *dirHandles) acquire(dir string) *dirHandle {
	d.mu.Lock()
	defer d.mu.Unlock()
	h, ok := d.m[dir]
	if !ok {
		f, err := d.open(dir)
		if err != nil {
			d.m[dir] = nil
			return nil
		}
		h = &dirHandle{f: f}
		h.refs.Store(1) // the walker's, dropped by leave
		d.m[dir] = h
	}
	if h == nil {
		return nil
	}
	h.refs.Add(1)
	return h
}

// leave drops the walker's reference once it has listed dir.
func (d *dirHandles) leave(dir string) {
	d.mu.Lock()
	h, ok := d.m[dir]
	delete(d.m, dir)
	d.mu.Unlock()
	if ok && h != nil {
		h.release()
	}
}
