package fstools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/tetherdev/tether/tools"
)

// FolderArgs are create_folder's arguments.
type FolderArgs struct {
	Path string `json:"path" jsonschema:"description=Directory to create\\, relative to the workspace root; missing parents are created too."`
}

// FolderName is create_folder's name.
const FolderName = "create_folder"

// NewFolder returns create_folder.
func NewFolder(ws Workspace) tools.Tool {
	return tools.New(FolderName,
		"Create a directory, and any missing parent directories.",
		func(ctx context.Context, a FolderArgs) (tools.Result, error) {
			r, err := rel(ws, a.Path)
			if err != nil {
				return tools.Result{}, err
			}
			st, err := ws.Stat(r)
			switch {
			case err == nil && st.IsDir():
				return tools.Result{Text: fmt.Sprintf("%s already exists.", r), Meta: tools.Meta{Path: r}}, nil
			case err == nil:
				return tools.Result{}, fmt.Errorf("%q exists and is a file, not a directory", a.Path)
			case !errors.Is(err, fs.ErrNotExist):
				return tools.Result{}, err
			}
			if err := ws.MkdirAll(r, 0o755); err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: fmt.Sprintf("Created directory %s.", r), Meta: tools.Meta{Path: r, Created: true}}, nil
		},
		tools.WithEffects(func(_ context.Context, a FolderArgs) (tools.Effects, error) {
			r, err := rel(ws, a.Path)
			if err != nil {
				return tools.Effects{}, err
			}
			return tools.Effects{Annotations: tools.Annotations{Idempotent: true}, Writes: []string{r}, CreatesOnly: true}, nil
		}),
		tools.WithArgAliases("path", "dir", "directory", "folder", "folder_path", "dir_path"),
	)
}
