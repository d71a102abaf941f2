//go:build !unix

package search

import (
	"errors"
	"os"
)

// openAt is not available here; Search reads through the FS instead.
func openAt(*os.File, string) (*os.File, error) {
	return nil, errors.ErrUnsupported
}

func openSubdir(*dirHandle, string) *dirHandle { return nil }

func readAt(_ *dirHandle, _ string, _ int64, buf []byte) ([]byte, fileKind) {
	return buf[:0], kindUnreadable
}

// haveOpenAt says openAt works on this system.
const haveOpenAt = false
