package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// grants names the fields of s that loosen what a person is asked or
// start programs: the ones a project file may set only once trusted.
func (s Settings) grants() []string {
	var out []string
	if len(s.Permissions.Allow) > 0 {
		out = append(out, "permissions.allow")
	}
	if s.Permissions.AllowReadOnly != nil && *s.Permissions.AllowReadOnly {
		out = append(out, "permissions.allowReadOnly")
	}
	if s.AutoApproveSensitiveEdits != nil && *s.AutoApproveSensitiveEdits {
		out = append(out, "autoApproveSensitiveEdits")
	}
	if s.Sandbox == "off" {
		out = append(out, "sandbox")
	}
	if len(s.Web.Allow) > 0 {
		out = append(out, "web.allow")
	}
	if s.LSP != nil && *s.LSP {
		out = append(out, "lsp")
	}
	for _, n := range slices.Sorted(maps.Keys(s.MCPServers)) {
		out = append(out, mapField("mcpServers", n))
	}
	for _, n := range slices.Sorted(maps.Keys(s.LSPServers)) {
		out = append(out, mapField("lspServers", n))
	}
	return out
}

// withoutGrants is s with every field grants names cleared.
func (s Settings) withoutGrants() Settings {
	s.Permissions.Allow = nil
	if s.Permissions.AllowReadOnly != nil && *s.Permissions.AllowReadOnly {
		s.Permissions.AllowReadOnly = nil
	}
	if s.AutoApproveSensitiveEdits != nil && *s.AutoApproveSensitiveEdits {
		s.AutoApproveSensitiveEdits = nil
	}
	if s.Sandbox == "off" {
		s.Sandbox = ""
	}
	s.Web.Allow = nil
	if s.LSP != nil && *s.LSP {
		s.LSP = nil
	}
	s.MCPServers, s.LSPServers = nil, nil
	return s
}

// trustRecord is what the user trusted of one workspace: the SHA-256 of
// its project and local files ("" for a file that was absent).
type trustRecord struct {
	Project string `json:"project"`
	Local   string `json:"local"`
}

func (e Env) trustPath() (string, error) {
	d, err := e.configDir()
	if err != nil {
		return "", fmt.Errorf("settings: no user config directory: %w", err)
	}
	return filepath.Join(d, filepath.FromSlash(trustFile)), nil
}

func (e Env) readTrust() (map[string]trustRecord, error) {
	p, err := e.trustPath()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]trustRecord{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	var m map[string]trustRecord
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &Error{File: p, Msg: "not the trust list Tether writes (" + err.Error() + "); delete it and trust the workspaces again"}
	}
	if m == nil {
		m = map[string]trustRecord{}
	}
	return m, nil
}

// current hashes the project and local files of workspace as they are.
func current(workspace string) (trustRecord, error) {
	var r trustRecord
	for _, f := range []struct {
		rel string
		dst *string
	}{{ProjectFile, &r.Project}, {LocalFile, &r.Local}} {
		data, err := os.ReadFile(filepath.Join(workspace, filepath.FromSlash(f.rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return r, fmt.Errorf("settings: %w", err)
		}
		sum := sha256.Sum256(data)
		*f.dst = hex.EncodeToString(sum[:])
	}
	return r, nil
}

// trusted reports whether the user trusted workspace's files as they
// are now. A workspace without them has nothing to trust.
func (e Env) trusted(workspace string) (bool, error) {
	cur, err := current(workspace)
	if err != nil {
		return false, err
	}
	if cur == (trustRecord{}) {
		return true, nil
	}
	m, err := e.readTrust()
	if err != nil {
		return false, err
	}
	rec, ok := m[workspace]
	return ok && rec == cur, nil
}

// Trust records that the user accepts workspace's project and local
// settings files as they are now, so Load applies all of their fields.
// A later change to either file withdraws the trust.
func Trust(workspace string) error { return Env{}.Trust(workspace) }

// Trust is Trust with e's user directory.
func (e Env) Trust(workspace string) error {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return fmt.Errorf("settings: workspace %q: %w", workspace, err)
	}
	cur, err := current(abs)
	if err != nil {
		return err
	}
	m, err := e.readTrust()
	if err != nil {
		return err
	}
	m[abs] = cur
	p, err := e.trustPath()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(p, append(data, '\n'), 0o600)
}

// writeAtomic writes data to path through a temporary file in the same
// directory, so a reader never sees half of it.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), perm)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("settings: writing %s: %w", path, werr)
	}
	return nil
}
