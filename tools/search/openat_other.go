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

// haveOpenAt says openAt works on this system.
const haveOpenAt = false
