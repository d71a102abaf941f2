package safety

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// stripFolderName drops a leading "<workspace folder name>/" from a relative
// path when the workspace holds nothing of that name. Editors prefix relative
// paths with the folder's name (VS Code's asRelativePath(uri, true) gives
// "demo-project/src/x.ts" in a workspace named demo-project), and models copy
// them; joined to the root, the name would double. A real entry named like the
// folder keeps the path as it is, so a project with such a sub-directory is
// never misread. The stripped path is resolved and confined like any other: this
// only chooses which relative path is meant.
func (w *Workspace) stripFolderName(p string) string {
	slashed := strings.TrimPrefix(filepath.ToSlash(p), "./")
	first, rest, ok := strings.Cut(slashed, "/")
	if !ok || rest == "" || first == "" || first == "." || first == ".." {
		return p
	}
	if first != filepath.Base(w.given) && first != filepath.Base(w.root) {
		return p
	}
	if _, err := w.osRoot.Lstat(first); !errors.Is(err, fs.ErrNotExist) {
		return p // a real entry of that name, or no way to tell
	}
	return filepath.FromSlash(rest)
}
