package projectctx

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tetherdev/tether/internal/textcut"
)

// maxManifestNames bounds the dependency names a summary lists.
const maxManifestNames = 25

// summarizeManifest gives the facts of a build manifest a model needs
// (name, language version, scripts, main dependencies) in a few lines,
// instead of the whole file. An unreadable manifest is shown as its
// first lines: the model can still make sense of it.
func summarizeManifest(path string, data []byte) string {
	var s string
	switch path {
	case "go.mod":
		s = summarizeGoMod(string(data))
	case "package.json":
		s = summarizePackageJSON(data)
	case "pyproject.toml", "Cargo.toml":
		s = summarizeTOML(path, string(data))
	}
	if strings.TrimSpace(s) == "" {
		return textcut.AtLine(string(data), 1500)
	}
	return s
}

func summarizeGoMod(src string) string {
	var b strings.Builder
	var deps []string
	inRequire := false
	for line := range strings.Lines(src) {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 && !strings.Contains(line[:i], "\"") {
			indirect := strings.Contains(line[i:], "indirect")
			line = strings.TrimSpace(line[:i])
			if indirect {
				continue
			}
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case inRequire && f[0] == ")":
			inRequire = false
		case inRequire:
			deps = append(deps, f[0])
		case f[0] == "module" && len(f) > 1:
			fmt.Fprintf(&b, "module %s\n", f[1])
		case (f[0] == "go" || f[0] == "toolchain") && len(f) > 1:
			fmt.Fprintf(&b, "%s %s\n", f[0], f[1])
		case f[0] == "require" && len(f) > 1 && f[1] == "(":
			inRequire = true
		case f[0] == "require" && len(f) > 1:
			deps = append(deps, f[1])
		}
	}
	writeNames(&b, "requires", deps)
	return b.String()
}

func summarizePackageJSON(data []byte) string {
	var p struct {
		Name            string            `json:"name"`
		Version         string            `json:"version"`
		Type            string            `json:"type"`
		PackageManager  string            `json:"packageManager"`
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]any    `json:"dependencies"`
		DevDependencies map[string]any    `json:"devDependencies"`
		Workspaces      any               `json:"workspaces"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return ""
	}
	var b strings.Builder
	if p.Name != "" {
		fmt.Fprintf(&b, "name %s", p.Name)
		if p.Version != "" {
			fmt.Fprintf(&b, "@%s", p.Version)
		}
		b.WriteString("\n")
	}
	if p.Type != "" {
		fmt.Fprintf(&b, "type %s\n", p.Type)
	}
	if p.PackageManager != "" {
		fmt.Fprintf(&b, "packageManager %s\n", p.PackageManager)
	}
	if p.Workspaces != nil {
		b.WriteString("workspaces: yes (a monorepo)\n")
	}
	if len(p.Scripts) > 0 {
		b.WriteString("scripts:\n")
		for _, k := range sortedKeys(p.Scripts) {
			fmt.Fprintf(&b, "  %s: %s\n", k, textcut.Excerpt(p.Scripts[k], 120))
		}
	}
	writeNames(&b, "dependencies", sortedKeys(p.Dependencies))
	writeNames(&b, "devDependencies", sortedKeys(p.DevDependencies))
	return b.String()
}

// summarizeTOML reads the parts of pyproject.toml and Cargo.toml a
// summary needs with a line scanner: tables, simple key = "value" pairs,
// and the entries of dependency arrays and tables. It is not a TOML
// parser and does not need to be: what it cannot read it leaves out.
func summarizeTOML(path, src string) string {
	keys := map[string]bool{"name": true, "version": true, "edition": true, "requires-python": true, "description": true, "rust-version": true}
	var b strings.Builder
	var deps, tools []string
	table := ""
	inArray := "" // the key of a multi-line array being read
	sc := bufio.NewScanner(strings.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if inArray != "" {
			for _, v := range quoted(line) {
				deps = append(deps, depName(v))
			}
			if strings.HasPrefix(line, "]") || strings.HasSuffix(line, "]") {
				inArray = ""
			}
			continue
		}
		if strings.HasPrefix(line, "[") {
			table = strings.Trim(line, "[] ")
			if t, ok := strings.CutPrefix(table, "tool."); ok && path == "pyproject.toml" {
				tools = append(tools, strings.SplitN(t, ".", 2)[0])
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case isDependencyTable(table):
			deps = append(deps, strings.Trim(k, `"'`))
		case (k == "dependencies" || k == "requires" || k == "members") && strings.HasPrefix(v, "["):
			label := table + "." + k
			if k == "dependencies" {
				for _, q := range quoted(v) {
					deps = append(deps, depName(q))
				}
			} else {
				fmt.Fprintf(&b, "%s: %s\n", label, strings.Join(quoted(v), ", "))
			}
			if !strings.Contains(v, "]") && k == "dependencies" {
				inArray = k
			}
		case keys[k] && (table == "project" || table == "package" || table == "tool.poetry" || table == "workspace.package"):
			fmt.Fprintf(&b, "%s %s\n", k, strings.Trim(v, `"'`))
		}
	}
	writeNames(&b, "dependencies", compact(deps))
	writeNames(&b, "tools configured", compact(tools))
	return b.String()
}

func isDependencyTable(t string) bool {
	return t == "dependencies" || t == "dev-dependencies" || t == "workspace.dependencies" ||
		t == "tool.poetry.dependencies" || t == "tool.poetry.group.dev.dependencies"
}

// quoted returns the double- or single-quoted strings of a line.
func quoted(s string) []string {
	var out []string
	for {
		i := strings.IndexAny(s, `"'`)
		if i < 0 {
			return out
		}
		q := s[i]
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+1+j])
		s = s[i+2+j:]
	}
}

// depName cuts a PEP 508 requirement ("requests>=2; python_version…")
// down to the package name.
func depName(req string) string {
	if i := strings.IndexAny(req, " <>=!~;[("); i > 0 {
		return req[:i]
	}
	return req
}

func compact(s []string) []string {
	s = slices.DeleteFunc(s, func(v string) bool { return v == "" })
	slices.Sort(s)
	return slices.Compact(s)
}

func writeNames(b *strings.Builder, label string, names []string) {
	if len(names) == 0 {
		return
	}
	more := ""
	if len(names) > maxManifestNames {
		more = fmt.Sprintf(" … and %d more", len(names)-maxManifestNames)
		names = names[:maxManifestNames]
	}
	fmt.Fprintf(b, "%s: %s%s\n", label, strings.Join(names, ", "), more)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
