//go:build linux

// Package tmpfstest mounts small real file systems for tests of what
// happens when a disk fills up: a tmpfs of a fixed size, and a filler
// that takes its free space.
//
// Mounting needs CAP_SYS_ADMIN. Without it the test is skipped with the
// reason; with CI=true, a test running as root fails instead, since the
// CI machine is expected to mount.
package tmpfstest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new directory and returns it.
// It is unmounted when the test ends.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tmpfstest")
	if err != nil {
		t.Fatal(err)
	}
	if err := mount(dir, size); err != nil {
		os.Remove(dir)
		reason := fmt.Sprintf("cannot mount a %d-byte tmpfs (running as uid %d): %v", size, os.Geteuid(), err)
		if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
			t.Fatal(reason + "; CI runs as root and must be able to")
		}
		t.Skip(reason)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			// Something still holds a file open (a process the test
			// killed may not be reaped yet): detach it instead.
			syscall.Unmount(dir, syscall.MNT_DETACH)
		}
		os.Remove(dir)
	})
	return dir
}

func mount(dir string, size int64) error {
	if os.Geteuid() != 0 {
		return errors.New("mounting needs root (CAP_SYS_ADMIN)")
	}
	return syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0755", size))
}

// Fill writes a filler file in dir until the file system is full, then
// gives back leave bytes (rounded by the file system to its blocks), and
// returns a function that frees the space again.
func Fill(t testing.TB, dir string, leave int64) (free func()) {
	t.Helper()
	name := filepath.Join(dir, ".filler")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(block)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
	}
	if leave > 0 {
		if err := f.Truncate(max(n-leave, 0)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	return func() { os.Remove(name) }
}

// Free returns the bytes free on the file system holding dir.
func Free(t testing.TB, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
