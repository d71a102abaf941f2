package mcp

import (
	"encoding/json"
	"strings"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// pathParam is one argument of a file tool that names a path.
type pathParam struct {
	key  string
	op   safety.Op
	dflt string // used when the argument is absent; "" means required
}

// fileTools describes Tether's built-in file, search and code-intelligence
// tools by what they touch. Arguments here are as the registry normalised
// them, so "path" is always spelled "path".
var fileTools = map[string][]pathParam{
	"read_file":            {{"path", safety.OpRead, ""}},
	"get_file_size":        {{"path", safety.OpRead, ""}},
	"list_files":           {{"path", safety.OpRead, "."}},
	"search_workspace":     {{"path", safety.OpRead, "."}},
	"get_diagnostics":      {{"path", safety.OpRead, "."}},
	"write_file":           {{"path", safety.OpWrite, ""}},
	"create_file":          {{"path", safety.OpWrite, ""}},
	"edit_file":            {{"path", safety.OpWrite, ""}},
	"modify_lines":         {{"path", safety.OpWrite, ""}},
	"create_folder":        {{"path", safety.OpWrite, ""}},
	"rename_file":          {{"path", safety.OpWrite, ""}, {"new_path", safety.OpWrite, ""}},
	"patch_file":           {{"path", safety.OpWrite, ""}},
	"get_document_symbols": {{"path", safety.OpRead, ""}},
	"find_definition":      {{"path", safety.OpRead, ""}},
	"find_references":      {{"path", safety.OpRead, ""}},
	"find_implementations": {{"path", safety.OpRead, ""}},
	"get_hover_info":       {{"path", safety.OpRead, ""}},
	"get_call_hierarchy":   {{"path", safety.OpRead, ""}},
	"get_type_hierarchy":   {{"path", safety.OpRead, ""}},
	"find_symbol":          {},
}

// ActionOf describes a call of one of Tether's built-in tools as the
// safety.Action a Policy judges: run_terminal_command is its command and
// cwd; file tools are their paths with read or write access; patch_file
// without a path is the file its diff names. It returns ok=false for any
// other tool, and for a call whose paths it cannot find (which then needs
// confirmation rather than slipping through unchecked).
func ActionOf(spec tools.Spec, call tools.Call) (safety.Action, bool) {
	var args map[string]any
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return safety.Action{}, false
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	if spec.Name == "run_terminal_command" {
		cmd := str("command")
		if cmd == "" {
			return safety.Action{}, false
		}
		return safety.Action{Tool: spec.Name, Command: cmd, Dir: str("cwd")}, true
	}
	params, known := fileTools[spec.Name]
	if !known {
		return safety.Action{}, false
	}
	a := safety.Action{Tool: spec.Name}
	for _, p := range params {
		v := str(p.key)
		if v == "" && spec.Name == "patch_file" {
			v = diffTarget(str("diff"))
		}
		if v == "" {
			v = p.dflt
		}
		if v == "" {
			return safety.Action{}, false
		}
		a.Paths = append(a.Paths, safety.PathOp{Path: v, Op: p.op})
	}
	if len(a.Paths) == 0 {
		// A workspace-wide index query (find_symbol): reading the root.
		a.Paths = []safety.PathOp{{Path: ".", Op: safety.OpRead}}
	}
	return a, true
}

// diffTarget is the file a unified diff's +++ line names, without its
// "b/" prefix, or "" when there is none.
func diffTarget(diff string) string {
	for line := range strings.Lines(diff) {
		if rest, ok := strings.CutPrefix(line, "+++ "); ok {
			rest = strings.TrimSpace(rest)
			if i := strings.IndexByte(rest, '\t'); i >= 0 {
				rest = rest[:i]
			}
			if rest == "/dev/null" {
				return ""
			}
			return strings.TrimPrefix(rest, "b/")
		}
	}
	return ""
}
