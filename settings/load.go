package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Where the files live, relative to the workspace or the user's config
// directory.
const (
	ProjectFile = ".tether/settings.json"
	LocalFile   = ".tether/settings.local.json"
	userFile    = "tether/settings.json"
	trustFile   = "tether/trusted.json"
)

// Scope says which file a setting came from.
type Scope string

const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
	ScopeLocal   Scope = "local"
	ScopeFlags   Scope = "flags"
)

// Loaded is the result of Load: the merged settings and where they came
// from.
type Loaded struct {
	Settings
	// Files are the settings files read, in precedence order.
	Files []string
	// Untrusted names the fields of the project and local files that were
	// left out because those files are not trusted ("permissions.allow",
	// "mcpServers.github"); empty when nothing was.
	Untrusted []string
	// Workspace is the directory the project files were read from.
	Workspace string
}

// Env tells Load where the user's files are. The zero value uses
// $XDG_CONFIG_HOME, else os.UserConfigDir.
type Env struct {
	// ConfigDir replaces the user's config directory (the directory
	// holding tether/settings.json).
	ConfigDir string
}

func (e Env) configDir() (string, error) {
	if e.ConfigDir != "" {
		return e.ConfigDir, nil
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	return os.UserConfigDir()
}

// UserFile is the path of the user's settings file.
func (e Env) UserFile() (string, error) {
	d, err := e.configDir()
	if err != nil {
		return "", fmt.Errorf("settings: no user config directory: %w", err)
	}
	return filepath.Join(d, filepath.FromSlash(userFile)), nil
}

// Load reads the user, project and local settings of workspace, merged
// in that order (see the package doc), with the user's files found as
// Env{} finds them.
func Load(workspace string) (*Loaded, error) { return Env{}.Load(workspace) }

// Load is Load with e's user directory.
func (e Env) Load(workspace string) (*Loaded, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("settings: workspace %q: %w", workspace, err)
	}
	l := &Loaded{Workspace: abs}
	user, err := e.UserFile()
	if err != nil {
		return nil, err
	}
	if s, ok, err := readFile(user); err != nil {
		return nil, err
	} else if ok {
		l.Files = append(l.Files, user)
		l.Settings = s
	}
	trusted, err := e.trusted(abs)
	if err != nil {
		return nil, err
	}
	for _, rel := range []string{ProjectFile, LocalFile} {
		path := filepath.Join(abs, filepath.FromSlash(rel))
		s, ok, err := readFile(path)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		l.Files = append(l.Files, path)
		if !trusted {
			for _, f := range s.grants() {
				l.Untrusted = append(l.Untrusted, rel+": "+f)
			}
			s = s.withoutGrants()
		}
		l.Settings = l.Settings.Override(s)
	}
	if err := l.Settings.CheckMode(); err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(l.Files, ", "), err)
	}
	return l, nil
}

// readFile parses path; a missing file is not an error.
func readFile(path string) (Settings, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, false, nil
	}
	if err != nil {
		return Settings{}, false, fmt.Errorf("settings: %w", err)
	}
	s, err := Parse(path, data)
	return s, true, err
}

// Override returns s with o applied on top: o's scalars that are set
// replace s's, lists are joined (duplicates dropped), and maps merge by
// name with o's entries winning. Hosts apply their flags this way, last.
func (s Settings) Override(o Settings) Settings {
	out := s
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&out.Schema, o.Schema)
	set(&out.Model, o.Model)
	set(&out.Mode, o.Mode)
	set(&out.Sandbox, o.Sandbox)
	set(&out.ToolCalling, o.ToolCalling)
	if o.ModelOptions.NumCtx != 0 {
		out.ModelOptions.NumCtx = o.ModelOptions.NumCtx
	}
	if o.ModelOptions.Temperature != nil {
		out.ModelOptions.Temperature = o.ModelOptions.Temperature
	}
	if o.ApprovalTimeout != 0 {
		out.ApprovalTimeout = o.ApprovalTimeout
	}
	if o.AutoApproveSensitiveEdits != nil {
		out.AutoApproveSensitiveEdits = o.AutoApproveSensitiveEdits
	}
	if o.Permissions.AllowReadOnly != nil {
		out.Permissions.AllowReadOnly = o.Permissions.AllowReadOnly
	}
	if o.LSP != nil {
		out.LSP = o.LSP
	}
	out.Permissions.Allow = union(s.Permissions.Allow, o.Permissions.Allow)
	out.Permissions.Ask = union(s.Permissions.Ask, o.Permissions.Ask)
	out.Permissions.Deny = union(s.Permissions.Deny, o.Permissions.Deny)
	out.SensitiveFiles = union(s.SensitiveFiles, o.SensitiveFiles)
	out.SecretFiles = union(s.SecretFiles, o.SecretFiles)
	out.DisabledTools = union(s.DisabledTools, o.DisabledTools)
	out.Web.Allow = union(s.Web.Allow, o.Web.Allow)
	out.Web.Deny = union(s.Web.Deny, o.Web.Deny)
	out.MCPServers = mergeMap(s.MCPServers, o.MCPServers)
	out.LSPServers = mergeMap(s.LSPServers, o.LSPServers)
	out.Modes = mergeMap(s.Modes, o.Modes)
	return out
}

func union(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func mergeMap[V any](a, b map[string]V) map[string]V {
	if len(b) == 0 {
		return a
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]V{}
	}
	maps.Copy(out, b)
	return out
}

// CheckMode reports a Mode that names neither a built-in mode nor one of
// Modes. It is checked on the merged settings, since the mode and its
// definition may come from different files.
func (s Settings) CheckMode() error {
	if s.Mode == "" || slices.Contains(BuiltinModes, s.Mode) {
		return nil
	}
	if _, ok := s.Modes[s.Mode]; ok {
		return nil
	}
	names := append(slices.Clone(BuiltinModes), slices.Sorted(maps.Keys(s.Modes))...)
	return &Error{Field: "mode", Msg: fmt.Sprintf("%q is not a mode; want one of %s", s.Mode, strings.Join(names, ", "))}
}
