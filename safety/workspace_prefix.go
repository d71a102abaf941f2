package safety

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// stripFolderName drops a leading "<workspace folder name>/" from a relative
// path when that is the path that exists. Editors prefix relative paths with
// the folder's name (VS Code's asRelativePath(uri, true) gives
// "demo-project/src/x.ts" in a workspace named demo-project), and models copy
// them; joined to the root, the name would double. The path that exists wins:
// the prefixed path when it exists (a real sub-directory named like the
// folder), else the stripped path when it exists. When neither exists (a new
// file), the prefix is dropped unless the workspace has an entry of that
// name. The stripped path is resolved and confined like any other: this only
// chooses which relative path is meant.
func (w *Workspace) stripFolderName(p string) string {
	slashed := strings.TrimPrefix(filepath.ToSlash(p), "./")
	first, rest, ok := strings.Cut(slashed, "/")
	if !ok || rest == "" || first == "" || first == "." || first == ".." {
		return p
	}
	if first != filepath.Base(w.given) && first != filepath.Base(w.root) {
		return p
	}
	exists := func(rel string) (yes, known bool) {
		_, err := w.osRoot.Lstat(filepath.FromSlash(rel))
		if err == nil {
			return true, true
		}
		return false, errors.Is(err, fs.ErrNotExist)
	}
	if yes, known := exists(slashed); yes || !known {
		return p // the prefixed path is real, or there is no way to tell
	}
	if yes, _ := exists(rest); yes {
		return filepath.FromSlash(rest)
	}
	if yes, known := exists(first); yes || !known {
		return p // an entry named like the folder (or no way to tell): keep it
	}
	return filepath.FromSlash(rest)
}
