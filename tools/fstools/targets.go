package fstools

import (
	"encoding/json"

	"github.com/tetherdev/tether/tools"
)

// Targets returns the paths, as written, that a prepared call (see
// tools.Registry.Prepare) of a file tool would create, change or remove,
// so that a host can ask for approval and snapshot them first. It returns
// nil for tools that change no file.
func Targets(call tools.Call) []string {
	var a struct {
		Path    string `json:"path"`
		NewPath string `json:"new_path"`
		Diff    string `json:"diff"`
	}
	if json.Unmarshal(call.Arguments, &a) != nil {
		return nil
	}
	switch call.Name {
	case WriteName, CreateName, EditName, ModifyName, FolderName:
		return []string{a.Path}
	case RenameName:
		return []string{a.Path, a.NewPath}
	case PatchName:
		if a.Path != "" {
			return []string{a.Path}
		}
		if target, _, err := parseDiff(a.Diff); err == nil && target != "" {
			return []string{target}
		}
	}
	return nil
}
