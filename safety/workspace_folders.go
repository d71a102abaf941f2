package safety

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// folderSpec is an extra root asked for with WithFolder; OpenWorkspace
// opens it once every option has been applied, so it shares the primary's
// home, sensitivity rules and logger whatever the order of the options.
type folderSpec struct{ name, dir string }

// folder is one extra root of a multi-root workspace: a Workspace of its
// own, so its paths are resolved and confined exactly as the primary's.
type folder struct {
	name string
	ws   *Workspace
}

// WithFolder adds a further named root to the workspace, as an editor's
// multi-root workspace has several folders. A relative path whose first
// segment is name ("lib/util.ts") names a file of that folder, unless the
// primary root holds an entry of that name, which wins; an absolute path
// under dir names a file of that folder. Either way the rest of the path is
// resolved and confined inside that one folder, as inside the primary root:
// "lib/../../app/.env" is refused because it leaves lib, and a symlink in one
// root pointing into another is refused because it leaves the root it is
// named in. Rel and Check name folder files "name/rest".
//
// name must be one path segment, unique, and differ from the primary root's
// own directory name; the roots must not overlap.
func WithFolder(name, dir string) WorkspaceOption {
	return func(w *Workspace) error {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || checkSpelling(name) != "" {
			return fmt.Errorf("safety: folder name %q must be a single path segment", name)
		}
		w.specs = append(w.specs, folderSpec{name: name, dir: dir})
		return nil
	}
}

// openFolders opens the folders asked for with WithFolder and refuses
// duplicate names and overlapping roots, so that every path belongs to
// exactly one root.
func (w *Workspace) openFolders() error {
	roots := map[string]string{w.root: filepath.Base(w.root)}
	for _, s := range w.specs {
		if s.name == filepath.Base(w.root) || s.name == filepath.Base(w.given) {
			return fmt.Errorf("safety: folder name %q is the workspace root's own name", s.name)
		}
		for _, f := range w.folders {
			if f.name == s.name {
				return fmt.Errorf("safety: two folders are named %q", s.name)
			}
		}
		sub, err := OpenWorkspace(s.dir, WithHome(w.home), WithSensitivity(w.sens), WithLogger(w.log))
		if err != nil {
			w.closeFolders()
			return fmt.Errorf("safety: folder %q: %w", s.name, err)
		}
		for r, n := range roots {
			if within(r, sub.root) || within(sub.root, r) {
				sub.Close()
				w.closeFolders()
				return fmt.Errorf("safety: folder %q (%s) overlaps %q (%s); roots must not contain one another", s.name, sub.root, n, r)
			}
		}
		roots[sub.root] = s.name
		w.folders = append(w.folders, folder{name: s.name, ws: sub})
	}
	w.specs = nil
	return nil
}

func (w *Workspace) closeFolders() error {
	var errs []error
	for _, f := range w.folders {
		errs = append(errs, f.ws.Close())
	}
	return errors.Join(errs...)
}

// route picks the folder a path names, and the path to give that folder's
// Workspace; ok is false when the path belongs to the primary root (which
// also refuses spellings and paths outside every root). Only the choice of
// root happens here: the chosen Workspace resolves and confines the rest.
func (w *Workspace) route(path string) (f folder, sub string, ok bool) {
	if len(w.folders) == 0 || checkSpelling(path) != "" {
		return folder{}, "", false
	}
	p, why := expandPath(path, w.home)
	if why != "" {
		return folder{}, "", false
	}
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		for _, f := range w.folders {
			if within(f.ws.root, clean) || within(f.ws.given, clean) {
				return f, p, true
			}
		}
		return folder{}, "", false
	}
	first, rest, _ := strings.Cut(strings.TrimPrefix(filepath.ToSlash(p), "./"), "/")
	if rest == "" {
		rest = "." // the folder itself
	}
	for _, f := range w.folders {
		if f.name != first {
			continue
		}
		if _, err := w.osRoot.Lstat(first); !errors.Is(err, fs.ErrNotExist) {
			return folder{}, "", false // a real entry of the primary root wins
		}
		return f, filepath.FromSlash(rest), true
	}
	return folder{}, "", false
}

// qualify names a folder-relative path as the primary's methods accept it.
func (f folder) qualify(rel string) string {
	if rel == "" {
		return ""
	}
	if rel == "." {
		return f.name
	}
	return f.name + "/" + rel
}

// asWritten puts the caller's spelling back into a folder's *PathError, so
// the error names the path the caller wrote, not the folder-relative rest.
func asWritten(err error, path string) error {
	var pe *PathError
	if errors.As(err, &pe) && pe.Path != path {
		c := *pe
		c.Path = path
		return &c
	}
	return err
}
