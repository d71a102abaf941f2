package mcp

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// A tool allowed by its read-only annotation alone says nothing about whose
// files it reads, so each call's string arguments are judged as paths the
// server may open, by the workspace's sensitivity rules (the built-in
// secret floor and the project's own rules), before the call runs unasked:
//
//   - a relative path is resolved from the workspace root and from the
//     server's directory (a stdio server resolves it from its own);
//   - "~/" and file:// URIs (percent-decoded) are expanded;
//   - every symbolic link is followed, and both the spelling and the
//     target are judged, so a link in the workspace to ~/.ssh/id_rsa is
//     the key it names;
//   - a relative argument is also joined to every other argument that
//     names an existing directory ({"dir": "deploy", "file": "prod.conf"}),
//     since a server may join them.
//
// This is a heuristic over what the server may do with its arguments: a
// path assembled from three arguments, none of them an existing directory,
// is not found.

// maxArgStrings and maxArgLen bound the work on one call's arguments.
const (
	maxArgStrings = 256
	maxArgLen     = 4096
)

// argJudge judges a call's arguments as paths.
type argJudge struct {
	sens  *safety.Sensitivity // nil: the built-in floor alone
	root  string              // the workspace root, "" without a workspace
	bases []string            // where relative paths are resolved from
	home  string
}

func newArgJudge(ws *safety.Workspace, serverDir string) argJudge {
	j := argJudge{}
	j.home, _ = os.UserHomeDir()
	if ws != nil {
		j.sens, j.root = ws.Sensitivity(), ws.Root()
		j.bases = append(j.bases, ws.Root())
	}
	if serverDir == "" {
		serverDir, _ = os.Getwd()
	}
	if serverDir != "" {
		j.bases = append(j.bases, serverDir)
	}
	return j
}

// secret returns the first argument that leads to a secret, and the match.
func (j argJudge) secret(args json.RawMessage) (string, safety.SensitivityMatch, bool) {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return "", safety.SensitivityMatch{}, false
	}
	var strs []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if len(strs) < maxArgStrings && v != "" && len(v) < maxArgLen {
				strs = append(strs, v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	var dirs []string
	for _, s := range strs {
		for _, p := range j.candidates(s, nil) {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				dirs = append(dirs, p)
			}
		}
	}
	for _, s := range strs {
		// The spelling itself, as the server may read it (the floor's
		// names match anywhere in a path).
		if m := j.sens.Match(strings.ReplaceAll(strings.TrimPrefix(s, "file://"), `\`, "/")); m.Secret {
			return s, m, true
		}
		for _, p := range j.candidates(s, dirs) {
			for _, sp := range spellings(p) {
				if m := j.match(sp); m.Secret {
					return s, m, true
				}
			}
		}
	}
	return "", safety.SensitivityMatch{}, false
}

// candidates are the absolute paths s may name.
func (j argJudge) candidates(s string, dirs []string) []string {
	p := s
	if strings.HasPrefix(p, "file:") {
		u, err := url.Parse(p)
		if err != nil {
			return nil
		}
		p = u.Path
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if j.home == "" {
			return nil
		}
		p = filepath.Join(j.home, p[1:])
	}
	if filepath.IsAbs(p) {
		return []string{filepath.Clean(p)}
	}
	var out []string
	for _, b := range j.bases {
		out = append(out, filepath.Join(b, p))
	}
	for _, d := range dirs {
		out = append(out, filepath.Join(d, p))
	}
	return out
}

// spellings are p and, when links lead elsewhere, the path they lead to
// (for a path that does not exist, its deepest existing parent resolved).
func spellings(p string) []string {
	out := []string{p}
	dir, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if t := filepath.Join(r, rest); t != p {
				out = append(out, t)
			}
			return out
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// match judges an absolute path: relative to the workspace root when it is
// under it (the project's rules are written so), else as it is.
func (j argJudge) match(p string) safety.SensitivityMatch {
	if j.root != "" {
		if rel, err := filepath.Rel(j.root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			if m := j.sens.Match(filepath.ToSlash(rel)); m.Secret {
				return m
			}
		}
	}
	return j.sens.Match(filepath.ToSlash(p))
}
