package fstools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/tetherdev/tether/tools"
)

// RenameArgs are rename_file's arguments.
type RenameArgs struct {
	Path      string `json:"path" jsonschema:"description=File or directory to rename or move\\, relative to the workspace root."`
	NewPath   string `json:"new_path" jsonschema:"description=Its new path\\, relative to the workspace root; missing parent directories are created."`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"description=Replace new_path if it is an existing file."`
}

// RenameName is rename_file's name.
const RenameName = "rename_file"

// NewRename returns rename_file; both ends are confined to the workspace.
func NewRename(ws Workspace) tools.Tool {
	return tools.New(RenameName,
		"Rename or move a file or directory inside the workspace. Refuses to replace an existing file unless overwrite=true.",
		func(ctx context.Context, a RenameArgs) (tools.Result, error) { return rename(ws, a) },
		tools.WithArgAliases("path", "old_path", "oldPath", "source", "src", "from"),
		tools.WithArgAliases("new_path", "newPath", "destination", "dest", "target", "to", "new_name"),
	)
}

func rename(ws Workspace, a RenameArgs) (tools.Result, error) {
	from, err := rel(ws, a.Path)
	if err != nil {
		return tools.Result{}, err
	}
	to, err := rel(ws, a.NewPath)
	if err != nil {
		return tools.Result{}, err
	}
	if from == "." || to == "." {
		return tools.Result{}, errors.New("the workspace root itself cannot be renamed or replaced")
	}
	if from == to {
		return tools.Result{}, fmt.Errorf("%q and %q are the same path", a.Path, a.NewPath)
	}
	src, err := ws.Stat(from)
	if err != nil {
		return tools.Result{}, notFound(a.Path, err)
	}
	if dst, err := ws.Stat(to); err == nil {
		switch {
		case dst.IsDir():
			return tools.Result{}, fmt.Errorf("%q is an existing directory; give the full new path, e.g. %s", a.NewPath, path.Join(to, path.Base(from)))
		case !a.Overwrite:
			return tools.Result{}, fmt.Errorf("%q already exists; set overwrite=true to replace it", a.NewPath)
		case src.IsDir():
			return tools.Result{}, fmt.Errorf("cannot replace the file %q with the directory %q", a.NewPath, a.Path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return tools.Result{}, err
	}
	if dir := path.Dir(to); dir != "." {
		if err := ws.MkdirAll(dir, 0o755); err != nil {
			return tools.Result{}, err
		}
	}
	if err := ws.Rename(from, to); err != nil {
		return tools.Result{}, err
	}
	kind := "file"
	if src.IsDir() {
		kind = "directory"
	}
	return tools.Result{Text: fmt.Sprintf("Renamed %s %s to %s.", kind, from, to), Meta: tools.Meta{Path: to}}, nil
}
