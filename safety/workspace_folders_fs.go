package safety

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// foldersFS is the read-only view FS returns for a multi-root workspace:
// the primary root with each folder appearing as a directory of its name,
// as WithFolder routes paths. Every file is opened through the os.Root of
// the one root it belongs to, so the view is confined as each root is.
type foldersFS struct{ w *Workspace }

// split picks the root that serves the valid fs path name and the path
// inside it.
func (v foldersFS) split(name string) (fs.FS, string) {
	first, rest, _ := strings.Cut(name, "/")
	for _, f := range v.w.folders {
		if f.name != first {
			continue
		}
		if _, err := v.w.osRoot.Lstat(first); !errors.Is(err, fs.ErrNotExist) {
			break // a real entry of the primary root wins, as in route
		}
		if rest == "" {
			rest = "."
		}
		return f.ws.osRoot.FS(), rest
	}
	return v.w.osRoot.FS(), name
}

func (v foldersFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	sub, p := v.split(name)
	f, err := sub.Open(p)
	switch {
	case err != nil:
		return nil, err
	case name == ".":
		return &rootDir{File: f, v: v}, nil
	case p == ".":
		return folderRoot{f, name}, nil // a folder's root, under its name
	}
	return f, nil
}

// folderRoot is a folder's root directory opened under the folder's name.
type folderRoot struct {
	fs.File
	name string
}

func (r folderRoot) Stat() (fs.FileInfo, error) {
	fi, err := r.File.Stat()
	if err != nil {
		return nil, err
	}
	return renamedInfo{fi, r.name}, nil
}

func (r folderRoot) ReadDir(n int) ([]fs.DirEntry, error) {
	d, ok := r.File.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: r.name, Err: errors.ErrUnsupported}
	}
	return d.ReadDir(n)
}

// rootDir is the primary root opened as a directory: its listing is
// ReadDir("."), folders included, served in order across calls.
type rootDir struct {
	fs.File
	v      foldersFS
	ents   []fs.DirEntry
	listed bool
	offset int
}

func (d *rootDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.listed {
		ents, err := d.v.ReadDir(".")
		if err != nil {
			return nil, err
		}
		d.ents, d.listed = ents, true
	}
	rest := d.ents[d.offset:]
	if n <= 0 {
		d.offset = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.offset += n
	return rest[:n], nil
}

// ReadDir lists a directory; the primary root's listing includes the
// folders, so a walk of the workspace reaches them.
func (v foldersFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	sub, p := v.split(name)
	ents, err := fs.ReadDir(sub, p)
	if err != nil || name != "." {
		return ents, err
	}
	for _, f := range v.w.folders {
		if slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.Name() == f.name }) {
			continue // shadowed by a real entry, as in route
		}
		fi, err := fs.Stat(f.ws.osRoot.FS(), ".")
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: err}
		}
		ents = append(ents, fs.FileInfoToDirEntry(renamedInfo{fi, f.name}))
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// renamedInfo is a folder root's FileInfo under the folder's name.
type renamedInfo struct {
	fs.FileInfo
	name string
}

func (r renamedInfo) Name() string { return r.name }
