package safety

import (
	"bufio"
	"path"
	"path/filepath"
	"strings"
)

// Files are code because another file says so: git runs the hooks in the
// directory its configuration names (git-config(1), core.hooksPath), so
// that directory is as sensitive as .git/hooks, whatever it is called.
// The configuration is read at each check, since a command may change it.

// hooksPath returns the workspace-relative directory the repository at
// the root names in core.hooksPath, or "" when it names none in the
// workspace. Only .git/config is read: a hooksPath set in the user's
// global configuration lies outside the workspace's control.
func (w *Workspace) hooksPath() string {
	if w.osRoot == nil {
		return ""
	}
	f, err := w.osRoot.Open(".git/config")
	if err != nil {
		return ""
	}
	defer f.Close()
	section, value := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] \t"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), "hookspath") {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	if value == "" || strings.HasPrefix(value, "~") {
		return ""
	}
	if filepath.IsAbs(value) {
		rel, err := filepath.Rel(w.root, value)
		if err != nil {
			return ""
		}
		value = filepath.ToSlash(rel)
	}
	value = path.Clean(value)
	if value == "." || value == ".." || strings.HasPrefix(value, "../") {
		return ""
	}
	return value
}
