package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tetherdev/tether/tools"
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
var ErrNoBuildCommand = errors.New("agent: no build command detected")

// DetectBuildCommands looks at the workspace root for the project's
// build system: go.mod, Cargo.toml, package.json (its build and test
// scripts, with the package manager its lock file names), pyproject.toml
// or setup.py, then a Makefile. The first that matches wins.
func DetectBuildCommands(fsys fs.FS) (BuildCommands, error) {
	has := func(name string) bool { _, err := fs.Stat(fsys, name); return err == nil }
	switch {
	case has("go.mod"):
		return BuildCommands{Build: "go build ./...", Test: "go test ./...", Source: "go.mod"}, nil
	case has("Cargo.toml"):
		return BuildCommands{Build: "cargo build", Test: "cargo test", Source: "Cargo.toml"}, nil
	case has("package.json"):
		data, err := fs.ReadFile(fsys, "package.json")
		if err != nil {
			return BuildCommands{}, fmt.Errorf("agent: reading package.json: %w", err)
		}
		var p struct {
			Scripts map[string]string `json:"scripts"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return BuildCommands{}, fmt.Errorf("agent: package.json is not valid JSON: %w", err)
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

// BuildSkill returns the "build" skill: it runs the project's build or
// test command through the terminal handler, so the command rules, the
// approval policy and the checkpoint apply exactly as they do to
// run_terminal_command. Non-empty fields of configured override what
// detection finds.
func BuildSkill(configured BuildCommands) Skill {
	return buildSkill{SkillFunc{Spec: tools.Spec{
		Name: "build",
		Description: "Build the project or run its tests with the project's own command (detected from go.mod, package.json, Cargo.toml, pyproject.toml or a Makefile). " +
			"Use it to check your changes. Returns the command's output and exit code.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string","enum":["build","test"],"description":"build (the default) or test."},` +
			`"args":{"type":"string","description":"Extra arguments appended to the command, such as a package path or a test filter."}}}`),
	}, Run: func(ctx context.Context, env SkillEnv, args json.RawMessage) SkillResult {
		return runBuild(ctx, env, args, configured)
	}}}
}

func runBuild(ctx context.Context, env SkillEnv, args json.RawMessage, configured BuildCommands) SkillResult {
	var a struct {
		Action string `json:"action"`
		Args   string `json:"args"`
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return SkillResult{Text: `Error: the arguments must be {"action": "build"|"test", "args": "…"}`, Status: StatusError}
		}
	}
	action := strings.ToLower(strings.TrimSpace(a.Action))
	if action == "" {
		action = "build"
	}
	if action != "build" && action != "test" {
		return SkillResult{Text: fmt.Sprintf(`Error: unknown action %q; use "build" or "test"`, a.Action), Status: StatusError}
	}
	bc := configured
	if (action == "build" && bc.Build == "") || (action == "test" && bc.Test == "") {
		if env.Workspace == nil {
			return SkillResult{Text: "Error: " + ErrNoWorkspace.Error(), Status: StatusError}
		}
		found, err := DetectBuildCommands(env.Workspace.FS())
		if err != nil {
			return SkillResult{Text: "Error: " + err.Error() + ". Run the right command with run_terminal_command instead.", Status: StatusError}
		}
		if bc.Build == "" {
			bc.Build = found.Build
		}
		if bc.Test == "" {
			bc.Test = found.Test
		}
	}
	cmd := bc.Build
	if action == "test" {
		cmd = bc.Test
	}
	if cmd == "" {
		return SkillResult{Text: fmt.Sprintf("Error: %v: the project has no %s command. Use run_terminal_command with the right command.", ErrNoBuildCommand, action), Status: StatusError}
	}
	if extra := strings.TrimSpace(a.Args); extra != "" {
		cmd += " " + extra // judged with the rest by the safety analysis
	}
	if env.RunCommand == nil {
		return SkillResult{Text: "Error: " + ErrSkillOutsideRun.Error(), Status: StatusError}
	}
	res := env.RunCommand(ctx, cmd)
	res.Text = "$ " + cmd + "\n" + res.Text
	return res
}
