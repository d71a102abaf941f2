package projectctx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// BuildCommands are a project's build and test command lines.
type BuildCommands struct {
	Build string `json:"build,omitempty"`
	Test  string `json:"test,omitempty"`
	// Source says what they were detected from ("go.mod", "package.json
	// scripts", …) or "configured".
	Source string `json:"source,omitempty"`
}

// ErrNoBuildCommand: the project's build or test command could not be
// detected and none was configured.
var ErrNoBuildCommand = errors.New("projectctx: no build command detected")

// DetectBuild looks at the workspace root for the project's
// build system: go.mod, Cargo.toml, package.json (its build and test
// scripts, with the package manager its lock file names), pyproject.toml
// or setup.py, then a Makefile. The first that matches wins.
func DetectBuild(fsys fs.FS) (BuildCommands, error) {
	has := func(name string) bool { _, err := fs.Stat(fsys, name); return err == nil }
	switch {
	case has("go.mod"):
		return BuildCommands{Build: "go build ./...", Test: "go test ./...", Source: "go.mod"}, nil
	case has("Cargo.toml"):
		return BuildCommands{Build: "cargo build", Test: "cargo test", Source: "Cargo.toml"}, nil
	case has("package.json"):
		data, err := fs.ReadFile(fsys, "package.json")
		if err != nil {
			return BuildCommands{}, fmt.Errorf("projectctx: reading package.json: %w", err)
		}
		var p struct {
			Scripts map[string]string `json:"scripts"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return BuildCommands{}, fmt.Errorf("projectctx: package.json is not valid JSON: %w", err)
		}
		pm := "npm"
		switch {
		case has("pnpm-lock.yaml"):
			pm = "pnpm"
		case has("yarn.lock"):
			pm = "yarn"
		case has("bun.lockb") || has("bun.lock"):
			pm = "bun"
		}
		bc := BuildCommands{Source: "package.json scripts"}
		if _, ok := p.Scripts["build"]; ok {
			bc.Build = pm + " run build"
		}
		if _, ok := p.Scripts["test"]; ok {
			bc.Test = pm + " test"
		}
		if bc.Build == "" && bc.Test == "" {
			return bc, fmt.Errorf(`%w: package.json has no "build" or "test" script`, ErrNoBuildCommand)
		}
		return bc, nil
	case has("pyproject.toml") || has("setup.py"):
		return BuildCommands{Build: "python -m compileall -q .", Test: "python -m pytest", Source: "pyproject.toml"}, nil
	case has("Makefile") || has("makefile"):
		return BuildCommands{Build: "make", Test: "make test", Source: "Makefile"}, nil
	}
	return BuildCommands{}, fmt.Errorf("%w: no go.mod, Cargo.toml, package.json, pyproject.toml or Makefile at the workspace root", ErrNoBuildCommand)
}
