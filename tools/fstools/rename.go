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
		func(ctx context.Context, a RenameArgs) (tools.Result, error) {
			p, err := planRename(ws, a)
			if err != nil {
				return tools.Result{}, err
			}
			return p.commit(ctx, ws)
		},
		tools.WithEffects(func(_ context.Context, a RenameArgs) (tools.Effects, error) {
			p, err := planRename(ws, a)
			if err != nil {
				return tools.Effects{}, err
			}
			return p.effects(), nil
		}),
		tools.WithArgAliases("path", "old_path", "oldPath", "source", "src", "from"),
		tools.WithArgAliases("new_path", "newPath", "destination", "dest", "target", "to", "new_name"),
	)
}

// renamePlan is a checked rename. For a file it holds both contents, so
// the rename is declared as what it does to the bytes: the source goes,
// the destination gets the source's content.
type renamePlan struct {
	from, to  string
	dir       bool
	src       []byte // the source file's content
	dst       []byte // the destination's content when it exists
	dstExists bool
}

func planRename(ws Workspace, a RenameArgs) (renamePlan, error) {
	from, err := rel(ws, a.Path)
	if err != nil {
		return renamePlan{}, err
	}
	to, err := rel(ws, a.NewPath)
	if err != nil {
		return renamePlan{}, err
	}
	if from == "." || to == "." {
		return renamePlan{}, errors.New("the workspace root itself cannot be renamed or replaced")
	}
	if from == to {
		return renamePlan{}, fmt.Errorf("%q and %q are the same path", a.Path, a.NewPath)
	}
	src, err := ws.Stat(from)
	if err != nil {
		return renamePlan{}, notFound(a.Path, err)
	}
	p := renamePlan{from: from, to: to, dir: src.IsDir()}
	if dst, err := ws.Stat(to); err == nil {
		switch {
		case dst.IsDir():
			return renamePlan{}, fmt.Errorf("%q is an existing directory; give the full new path, e.g. %s", a.NewPath, path.Join(to, path.Base(from)))
		case !a.Overwrite:
			return renamePlan{}, fmt.Errorf("%q already exists; set overwrite=true to replace it", a.NewPath)
		case src.IsDir():
			return renamePlan{}, fmt.Errorf("cannot replace the file %q with the directory %q", a.NewPath, a.Path)
		}
		p.dstExists = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return renamePlan{}, err
	}
	if p.dir {
		return p, nil
	}
	if src.Size() > MaxEditSize {
		return renamePlan{}, fmt.Errorf("%w: %q is %d bytes; rename_file moves files up to %d bytes; use run_terminal_command (mv) for larger files", ErrTooLarge, a.Path, src.Size(), MaxEditSize)
	}
	if p.src, err = ws.ReadFile(from); err != nil {
		return renamePlan{}, notFound(a.Path, err)
	}
	if p.dstExists {
		if p.dst, err = ws.ReadFile(to); err != nil {
			return renamePlan{}, err
		}
	}
	return p, nil
}

func (p renamePlan) effects() tools.Effects {
	e := tools.Effects{Annotations: tools.Annotations{Destructive: p.dstExists}, Writes: []string{p.from, p.to}}
	if !p.dir {
		e.Changes = []tools.FileChange{
			{Path: p.from, Before: p.src, Existed: true, Remove: true},
			{Path: p.to, Before: p.dst, Existed: p.dstExists, After: p.src},
		}
	}
	return e
}

func (p renamePlan) commit(ctx context.Context, ws Workspace) (tools.Result, error) {
	if !p.dir {
		if err := tools.CheckApproved(ctx, p.from, p.src, nil, true); err != nil {
			return tools.Result{}, err
		}
		if err := tools.CheckApproved(ctx, p.to, p.dst, p.src, p.dstExists); err != nil {
			return tools.Result{}, err
		}
	}
	if dir := path.Dir(p.to); dir != "." {
		if err := ws.MkdirAll(dir, 0o755); err != nil {
			return tools.Result{}, err
		}
	}
	if err := ws.Rename(p.from, p.to); err != nil {
		return tools.Result{}, err
	}
	kind := "file"
	if p.dir {
		kind = "directory"
	}
	return tools.Result{Text: fmt.Sprintf("Renamed %s %s to %s.", kind, p.from, p.to), Meta: tools.Meta{Path: p.to}}, nil
}
