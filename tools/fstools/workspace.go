package fstools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// Workspace is what the file tools need of *safety.Workspace, which
// satisfies it. Every path a model writes goes through it: confinement,
// symlink resolution and atomic writes are its job, not the tools'.
type Workspace interface {
	Rel(path string) (string, error)
	Open(path string) (*os.File, error)
	Stat(path string) (fs.FileInfo, error)
	ReadFile(path string) ([]byte, error)
	WriteFile(path string, data []byte, perm fs.FileMode) error
	MkdirAll(path string, perm fs.FileMode) error
	Rename(oldpath, newpath string) error
}

var _ Workspace = (*safety.Workspace)(nil)

// Limits shared by the tools that read a whole file to change it.
const (
	// MaxEditSize bounds files that edit_file, modify_lines, patch_file
	// and write_file's append read into memory.
	MaxEditSize = 32 << 20
	defaultPerm = 0o644
)

// ErrTooLarge: the file is too large for a tool that loads it whole.
var ErrTooLarge = errors.New("file too large")

// rel returns the confined, slash-separated relative path, with an error
// that tells the model what to do.
func rel(ws Workspace, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", errors.New(`"path" is empty: give a file path relative to the workspace root`)
	}
	r, err := ws.Rel(path)
	if err != nil {
		if errors.Is(err, safety.ErrOutsideWorkspace) {
			return "", fmt.Errorf("%w; only files inside the workspace can be used", err)
		}
		return "", err
	}
	return r, nil
}

// loadText reads a file a tool is about to change: it must exist, be a
// regular file, fit MaxEditSize and be UTF-8 text.
func loadText(ws Workspace, path, r string) (string, fs.FileInfo, error) {
	st, err := ws.Stat(r)
	if err != nil {
		return "", nil, notFound(path, err)
	}
	if st.IsDir() {
		return "", nil, fmt.Errorf("%q is a directory, not a file", path)
	}
	if st.Size() > MaxEditSize {
		return "", nil, fmt.Errorf("%w: %q is %d bytes; this tool edits files up to %d bytes; use run_terminal_command (sed, patch) for larger files", ErrTooLarge, path, st.Size(), MaxEditSize)
	}
	b, err := ws.ReadFile(r)
	if err != nil {
		return "", nil, notFound(path, err)
	}
	if k := classify(b); k != "" {
		return "", nil, fmt.Errorf("%q is %s, not UTF-8 text; it cannot be edited as text", path, k)
	}
	return string(b), st, nil
}

func notFound(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%q does not exist; check the path with list_files or search_workspace", path)
	}
	return err
}

func permOf(st fs.FileInfo) fs.FileMode {
	if st == nil {
		return defaultPerm
	}
	return st.Mode().Perm()
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
