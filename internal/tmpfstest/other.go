//go:build !linux

package tmpfstest

import "testing"

// Mount skips: only Linux mounts a tmpfs here.
func Mount(t testing.TB, size int64) string {
	t.Skip("tmpfs mounts are only made on Linux")
	return ""
}

// Fill skips: see Mount.
func Fill(t testing.TB, dir string, leave int64) (free func()) {
	t.Skip("tmpfs mounts are only made on Linux")
	return nil
}

// Free skips: see Mount.
func Free(t testing.TB, dir string) int64 {
	t.Skip("tmpfs mounts are only made on Linux")
	return 0
}
