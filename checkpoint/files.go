package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// Files is the file access a checkpoint needs. *safety.Workspace satisfies
// it, which confines every path to the workspace; so does any os.Root
// wrapper. Paths handed to Files are slash-separated and relative to the
// workspace root (converted with filepath.FromSlash).
//
// WriteFile must be atomic (temp file in the same directory, fsync,
// rename) so a crash leaves the old or the new content, never a mix, and
// must create missing parent directories. Remove must remove a final
// symbolic link itself, never its target.
type Files interface {
	ReadFile(name string) ([]byte, error)
	WriteFile(name string, data []byte, perm fs.FileMode) error
	Remove(name string) error
	Rename(oldname, newname string) error
	Lstat(name string) (fs.FileInfo, error)
	MkdirAll(name string, perm fs.FileMode) error
}

// Optional upgrades, found by type assertion.
type (
	// relativizer resolves a path (absolute or relative, through
	// symlinks) to its confined workspace-relative form:
	// (*safety.Workspace).Rel.
	relativizer interface {
		Rel(path string) (string, error)
	}
	// rooter names the workspace, to tie checkpoints to it:
	// (*safety.Workspace).Root.
	rooter interface {
		Root() string
	}
	// chmoder restores exact permission bits a umask would otherwise mask.
	chmoder interface {
		Chmod(name string, mode fs.FileMode) error
	}
	// linkReader reads a symbolic link's target without following it:
	// (*safety.Workspace).Readlink.
	linkReader interface {
		Readlink(name string) (string, error)
	}
)

// key returns the canonical, slash-separated workspace-relative form of p
// under which a checkpoint records it, refusing .git and escapes. A final
// symlink is followed, as a write through it replaces its target.
func key(files Files, p string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: %q (want a file path inside the workspace)", ErrInvalidPath, p)
	}
	r, ok := files.(relativizer)
	if !ok {
		return validKey(p, p)
	}
	rel, err := r.Rel(p)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidPath, err)
	}
	return validKey(p, rel)
}

// keyNoFollow is key for operations on the name itself (remove, rename):
// the parent directory is resolved but a final symlink is not, so that
// removing a link can never remove its target.
func keyNoFollow(files Files, p string) (string, error) {
	r, ok := files.(relativizer)
	if !ok || p == "" || strings.ContainsRune(p, 0) {
		return key(files, p)
	}
	dir, base := filepath.Split(p)
	if base == "" || base == "." || base == ".." {
		return key(files, p)
	}
	dirRel := "."
	if dir != "" {
		var err error
		if dirRel, err = r.Rel(dir); err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalidPath, err)
		}
	}
	return validKey(p, path.Join(filepath.ToSlash(dirRel), base))
}

// validKey cleans rel (the resolved form of p) and checks that it names a
// file inside the workspace and outside .git.
func validKey(p, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("%w: %q is absolute; this Files implementation takes workspace-relative paths", ErrInvalidPath, p)
	}
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return "", fmt.Errorf("%w: %q is not a file inside the workspace", ErrInvalidPath, p)
	}
	for _, part := range strings.Split(rel, "/") {
		// Case-insensitive: on macOS and Windows ".GIT" is the same directory.
		if strings.EqualFold(part, ".git") {
			return "", fmt.Errorf("%w: %s", ErrProtectedPath, rel)
		}
	}
	return rel, nil
}

func native(rel string) string { return filepath.FromSlash(rel) }

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// capture reads the current image of rel and its content. A missing file
// is a valid image (Exists false); anything but a regular file is refused.
func (m *Manager) capture(rel string) (Image, []byte, error) {
	fi, err := m.files.Lstat(native(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return Image{}, nil, nil
	}
	if err != nil {
		return Image{}, nil, &PathError{Op: "snapshot", Path: rel, Err: err}
	}
	if !fi.Mode().IsRegular() {
		return Image{}, nil, &PathError{Op: "snapshot", Path: rel, Err: fmt.Errorf("%w (mode %s)", ErrNotRegular, fi.Mode().Type())}
	}
	if fi.Size() > m.maxSize {
		return Image{}, nil, &PathError{Op: "snapshot", Path: rel, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, fi.Size(), m.maxSize)}
	}
	data, err := m.files.ReadFile(native(rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Image{}, nil, nil
		}
		return Image{}, nil, &PathError{Op: "snapshot", Path: rel, Err: err}
	}
	return Image{Exists: true, Hash: hashOf(data), Mode: fi.Mode().Perm()}, data, nil
}

// captureAfter is capture for what the agent left: it also accepts a
// symbolic link (`ln -s`), whose image is its target, stored as its
// content so that a diff shows it. Undo removes a link the agent made; a
// pre-image is never a link (capture refuses one), since a link could
// not be put back through Files.
func (m *Manager) captureAfter(rel string) (Image, []byte, error) {
	img, data, err := m.capture(rel)
	r, ok := m.files.(linkReader)
	if !errors.Is(err, ErrNotRegular) || !ok {
		return img, data, err
	}
	fi, lerr := m.files.Lstat(native(rel))
	if lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return img, data, err
	}
	target, rerr := r.Readlink(native(rel))
	if rerr != nil {
		return img, data, err
	}
	data = []byte(target)
	return Image{Exists: true, Hash: hashOf(data), Mode: fs.ModeSymlink | fi.Mode().Perm()}, data, nil
}

// missingParents returns the parent directories of rel that do not exist,
// outermost first: the directories a write would create.
func (m *Manager) missingParents(rel string) []string {
	var missing []string
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if _, err := m.files.Lstat(native(dir)); err == nil {
			break
		}
		missing = append(missing, dir)
	}
	// reverse: outermost first
	for i, j := 0, len(missing)-1; i < j; i, j = i+1, j-1 {
		missing[i], missing[j] = missing[j], missing[i]
	}
	return missing
}

// put writes data as rel's content with mode, atomically through Files,
// then restores exact permission bits when Files can.
func (m *Manager) put(rel string, data []byte, mode fs.FileMode) error {
	if err := m.files.WriteFile(native(rel), data, mode); err != nil {
		return err
	}
	if c, ok := m.files.(chmoder); ok {
		if fi, err := m.files.Lstat(native(rel)); err == nil && fi.Mode().Perm() != mode.Perm() {
			return c.Chmod(native(rel), mode.Perm())
		}
	}
	return nil
}
