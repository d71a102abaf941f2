package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/tetherdev/tether/safety"
)

// SaveableRule is the allow rule an "always allow" answer to command
// would save: the command itself, as one rule, when it is a single
// command Tether's rule syntax can hold. Critical commands, lists and
// pipelines ("a && b", "x | sh") and commands with substitutions give
// ok false: no saved rule may cover more than the person saw.
func SaveableRule(command string) (rule string, ok bool) {
	rule = strings.TrimSpace(command)
	a := safety.AnalyzeCommand(rule)
	if len(a.Commands) != 1 || a.Severity == safety.SeverityCritical || strings.ContainsAny(rule, "$`\n") {
		return "", false
	}
	if n, err := CommandRule("allow", rule); err != nil || n != rule || rule == "*" {
		return "", false
	}
	return rule, true
}

// SaveRule adds rule to permissions.LIST (allow, ask or deny) of the
// workspace's project file, .tether/settings.json, creating it when
// needed and keeping its comments. If nothing of the project's files was
// being left out as untrusted, the new contents stay trusted, since the
// rule is the user's own answer; otherwise the rule waits for -trust like
// the rest.
func SaveRule(workspace, list, rule string) error { return Env{}.SaveRule(workspace, list, rule) }

// SaveRule is SaveRule with e's user directory.
func (e Env) SaveRule(workspace, list, rule string) error {
	if _, err := CommandRule(list, rule); err != nil {
		return fmt.Errorf("settings: rule %q: %w", rule, err)
	}
	return e.edit(workspace, func(v *hujson.Value, p Permissions) error {
		if slices.Contains(listOf(p, list), rule) {
			return nil
		}
		var ops []map[string]any
		if v.Find("/permissions") == nil {
			ops = append(ops, map[string]any{"op": "add", "path": "/permissions", "value": map[string]any{}})
		}
		if v.Find("/permissions/"+list) == nil {
			ops = append(ops, map[string]any{"op": "add", "path": "/permissions/" + list, "value": []string{}})
		}
		ops = append(ops, map[string]any{"op": "add", "path": "/permissions/" + list + "/-", "value": rule})
		return patch(v, ops)
	})
}

// RemoveRule removes rule from permissions.LIST of the project file; it
// is an error when the file does not hold it.
func RemoveRule(workspace, list, rule string) error { return Env{}.RemoveRule(workspace, list, rule) }

// RemoveRule is RemoveRule with e's user directory.
func (e Env) RemoveRule(workspace, list, rule string) error {
	return e.edit(workspace, func(v *hujson.Value, p Permissions) error {
		i := slices.Index(listOf(p, list), rule)
		if i < 0 {
			return fmt.Errorf("settings: %s has no %s rule %q", ProjectFile, list, rule)
		}
		return patch(v, []map[string]any{{"op": "remove", "path": fmt.Sprintf("/permissions/%s/%d", list, i)}})
	})
}

// ProjectRules are the permissions written in the workspace's project
// file (what SaveRule saved, and what the project shipped).
func ProjectRules(workspace string) (Permissions, error) {
	s, _, err := readFile(filepath.Join(workspace, filepath.FromSlash(ProjectFile)))
	return s.Permissions, err
}

func listOf(p Permissions, list string) []string {
	switch list {
	case "allow":
		return p.Allow
	case "ask":
		return p.Ask
	case "deny":
		return p.Deny
	}
	return nil
}

func patch(v *hujson.Value, ops []map[string]any) error {
	b, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	return v.Patch(b)
}

// edit rewrites the project file through change, which sees the parsed
// file and its permissions, then restores trust as SaveRule describes.
func (e Env) edit(workspace string, change func(*hujson.Value, Permissions) error) error {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return fmt.Errorf("settings: workspace %q: %w", workspace, err)
	}
	path := filepath.Join(abs, filepath.FromSlash(ProjectFile))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data = []byte("{}\n")
	} else if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	s, err := Parse(path, data)
	if err != nil {
		return err
	}
	l, err := e.Load(abs)
	if err != nil {
		return err
	}
	keepTrust := len(l.Untrusted) == 0
	v, err := hujson.Parse(data)
	if err != nil {
		return err
	}
	if err := change(&v, s.Permissions); err != nil {
		return err
	}
	v.Format()
	out := v.Pack()
	if _, err := Parse(path, out); err != nil {
		return fmt.Errorf("settings: the edit would break %s: %w", path, err)
	}
	if err := writeAtomic(path, out, 0o644); err != nil {
		return err
	}
	if err := ignoreLocal(abs); err != nil {
		return err
	}
	if keepTrust {
		return e.Trust(abs)
	}
	return nil
}

// ignoreLocal keeps the local file out of git: when .tether has no
// .gitignore, one naming settings.local.json is written beside the
// project file Tether just wrote.
func ignoreLocal(workspace string) error {
	path := filepath.Join(workspace, ".tether", ".gitignore")
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil // the project's own, or unreadable: left alone
	}
	return writeAtomic(path, []byte("# this machine's settings, not the project's\n"+filepath.Base(LocalFile)+"\n"), 0o644)
}
