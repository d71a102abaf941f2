package settings

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// foreignKeys are keys other agents' settings files use, with what to
// write for Tether instead. A file copied from Claude Code or Gemini CLI
// then fails with advice rather than a bare "unknown field".
var foreignKeys = map[string]string{
	"env":                   "Tether runs commands with a minimal environment and has no env setting; export the variable before starting Tether",
	"hooks":                 "Tether has no hooks; judge commands with permissions, or run examples/safety as another agent's hook",
	"defaultMode":           `Tether has no permission modes; use "mode" at the top level for the starting mode, and permissions.allow for what runs without asking`,
	"additionalDirectories": "a further workspace folder is the -folder flag",
	"allowedTools":          `for commands use permissions.allow ("git log"); to switch tools off use disabledTools`,
	"coreTools":             "to switch tools off use disabledTools",
	"excludeTools":          "to switch tools off use disabledTools",
	"num_ctx":               "write modelOptions.numCtx",
	"numCtx":                "write modelOptions.numCtx",
	"contextLength":         "write modelOptions.numCtx",
	"temperature":           "write modelOptions.temperature",
	"servers":               `MCP servers go under "mcpServers" (VS Code's "servers" key is read by -mcp-config files only)`,
	"mcp":                   `MCP servers go under "mcpServers"`,
	"read":                  `Tether has no per-tool read rules; list files under "secretFiles" (reading them asks) or "sensitiveFiles"`,
	"write":                 `Tether has no per-tool write rules; list files under "sensitiveFiles" (changing them asks)`,
	"apiKeyHelper":          "keys come from the environment: OPENAI_API_KEY, OLLAMA_API_KEY",
}

// claudeOnly are Claude Code settings with nothing like them in Tether.
var claudeOnly = []string{"autoUpdatesChannel", "includeCoAuthoredBy", "cleanupPeriodDays", "theme", "statusLine",
	"outputStyle", "enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers", "forceLoginMethod",
	"awsAuthRefresh", "spinnerTipsEnabled", "alwaysThinkingEnabled", "feedbackSurveyState"}

// unknownField explains a key t has no field for: advice for another
// agent's key, a near spelling, or the fields allowed.
func unknownField(t reflect.Type, field, name string, fields map[string]int) string {
	if adv, ok := foreignKeys[name]; ok {
		return "not a Tether setting: " + adv
	}
	if slices.Contains(claudeOnly, name) && field == "" {
		return "a Claude Code setting Tether has no counterpart for; remove it from this file"
	}
	names := slices.Sorted(maps.Keys(fields))
	if s := nearest(name, names); s != "" {
		return fmt.Sprintf("unknown field; did you mean %q?", s)
	}
	where := "here"
	if field == "" {
		where = "at the top level"
	}
	return fmt.Sprintf("unknown field; allowed %s: %s", where, strings.Join(names, ", "))
}

// nearest is the name in names that s is most likely a misspelling of:
// equal ignoring case, "_" and "-", or within two edits; "" when none is.
func nearest(s string, names []string) string {
	fold := func(x string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(x))
	}
	for _, n := range names {
		if fold(n) == fold(s) {
			return n
		}
	}
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		// On a tie the name as long as s wins: "modle" is "model"
		// with two letters swapped, not "mode" with one added.
		if d < len(n) && (d < bestD || d == bestD && len(n) == len(s) && len(best) != len(s)) {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance of a and b:
// Levenshtein's, with a swap of two neighbouring letters as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
