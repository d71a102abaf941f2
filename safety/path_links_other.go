//go:build !unix

package safety

import "io/fs"

// linkCount is 1 where the platform does not report hard links through
// os.Lstat; such files are judged by name only.
func linkCount(fs.FileInfo) uint64 { return 1 }
