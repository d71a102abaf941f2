package tools

import "strings"

// NamespaceSep joins a namespace and a tool name: skill and MCP tools are
// registered as "<namespace>__<tool>", which fits the [a-zA-Z0-9_-]{1,64}
// rule every OpenAI-compatible server enforces (dots and slashes do not).
const NamespaceSep = "__"

// DefaultAliases maps names small models were trained on to Tether's
// built-in tools. A Registry consults them only when no tool has the
// alias as its real name, and only when the target is registered.
func DefaultAliases() map[string]string {
	return map[string]string{
		"list_dir":         "list_files",
		"ls":               "list_files",
		"list_directory":   "list_files",
		"run_command":      "run_terminal_command",
		"execute_terminal": "run_terminal_command",
		"execute_command":  "run_terminal_command",
		"bash":             "run_terminal_command",
		"shell":            "run_terminal_command",
		"terminal":         "run_terminal_command",
		"grep":             "search_workspace",
		"search_pattern":   "search_workspace",
		"search":           "search_workspace",
		"search_files":     "search_workspace",
		"view":             "read_file",
		"cat":              "read_file",
		"open_file":        "read_file",
		"str_replace":      "edit_file",
		"replace_in_file":  "edit_file",
		"apply_patch":      "patch_file",
		"apply_diff":       "patch_file",
		"mkdir":            "create_folder",
		"move_file":        "rename_file",
		"mv":               "rename_file",
	}
}

// cleanName strips what models wrap names in: spaces, quotes, an OpenAI
// "functions." prefix.
func cleanName(name string) string {
	name = strings.TrimSpace(name)
	name = strings.Trim(name, "\"'`")
	name = strings.TrimPrefix(name, "functions.")
	return name
}

// editDistance is the Levenshtein distance, for "did you mean" hints.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
