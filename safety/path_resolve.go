package safety

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinks bounds symlink expansion during one resolution, as the kernel
// does (Linux: 40), so a loop is reported instead of spinning.
const maxSymlinks = 40

// errSymlinkLoop is reported (wrapped in ErrInvalidPath) for too many links.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// resolved is the outcome of walking a path through the file system.
type resolved struct {
	path   string      // absolute, clean, no symlinks among the existing components
	info   fs.FileInfo // Lstat of path when it exists, else nil
	exists bool
	// notDir names an existing non-directory that the path treats as a
	// directory ("a.txt/child"); such a path can never exist.
	notDir string
}

// resolvePath walks the absolute path p one component at a time the way the
// kernel does: "." is skipped, ".." goes to the parent of the directory
// reached so far (so "link/.." is the parent of the link's target, not the
// directory holding the link), and each symlink is replaced by its target,
// absolute targets restarting from the volume root. When followFinal is false
// a symlink in the last position is kept, as lstat, unlink and rename see it.
//
// Components that do not exist yet (the file a write will create, and its
// parent directories) are appended lexically; ".." after one of them removes
// it again. Any other error (permission denied on a directory, say) is
// returned, because the true destination cannot be known.
//
// The walk uses Lstat and Readlink only; it never opens a file.
func resolvePath(p string, followFinal bool) (resolved, error) {
	vol := filepath.VolumeName(p)
	return resolveFrom(vol+string(filepath.Separator), p[len(vol):], followFinal)
}

// resolveFrom is resolvePath for the path rest relative to start, which
// must be an absolute, clean path free of symlinks (the workspace root, so
// that its components are not looked up again for every check).
func resolveFrom(start, rest string, followFinal bool) (resolved, error) {
	cur := start
	links := 0
	missing := false
	notDir := ""
	var info fs.FileInfo
	for {
		var comp string
		comp, rest = nextComponent(rest)
		if comp == "" {
			break
		}
		if comp == "." {
			continue
		}
		if comp == ".." {
			cur = filepath.Dir(cur)
			info = nil
			continue
		}
		next := filepath.Join(cur, comp)
		if missing {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				// ENOTDIR: a prefix is not a directory. The
				// path names nothing.
				if notDir == "" && errors.Is(err, syscall.ENOTDIR) {
					notDir = cur
				}
				missing = true
				info = nil
				cur = next
				continue
			}
			return resolved{}, err
		}
		// A trailing slash counts as a further component: like the
		// kernel, "link/" means the directory the link points to.
		last := rest == ""
		if fi.Mode()&fs.ModeSymlink != 0 && (!last || followFinal) {
			links++
			if links > maxSymlinks {
				return resolved{}, errSymlinkLoop
			}
			target, err := os.Readlink(next)
			if err != nil {
				return resolved{}, fmt.Errorf("reading symlink %s: %w", next, err)
			}
			if filepath.IsAbs(target) {
				tvol := filepath.VolumeName(target)
				cur = tvol + string(filepath.Separator)
				target = target[len(tvol):]
			}
			if rest != "" {
				target += string(filepath.Separator) + rest
			}
			rest = target
			info = nil
			continue
		}
		if !fi.IsDir() && !last && notDir == "" && fi.Mode()&fs.ModeSymlink == 0 {
			notDir = next
		}
		cur = next
		info = fi
	}
	r := resolved{path: cur, exists: !missing, notDir: notDir}
	if r.exists {
		if info == nil {
			// Ended on ".." or the volume root: the directory we are
			// in exists; stat it for the caller.
			fi, err := os.Lstat(cur)
			if err != nil {
				return resolved{}, err
			}
			info = fi
		}
		r.info = info
	}
	return r, nil
}

// nextComponent splits the first path element off s, skipping empty elements
// produced by repeated separators.
func nextComponent(s string) (comp, rest string) {
	for {
		s = strings.TrimLeft(s, string(filepath.Separator)+"/")
		if s == "" {
			return "", ""
		}
		i := strings.IndexAny(s, string(filepath.Separator)+"/")
		if i < 0 {
			return s, ""
		}
		return s[:i], s[i:]
	}
}

// within reports whether the clean absolute path p is root or lies below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// relTo returns p relative to root, slash-separated, "." for root itself.
// p must satisfy within(root, p).
func relTo(root, p string) string {
	if p == root {
		return "."
	}
	r := strings.TrimPrefix(p, root)
	r = strings.TrimPrefix(r, string(filepath.Separator))
	return filepath.ToSlash(r)
}
