package checkpoint

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime returns when fi's inode last changed (content, mode, name,
// creation), as the kernel stamped it.
func changeTime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Unix()), true
}
