package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/projectctx"
	"github.com/tetherdev/tether/tools"
)

// BuildSkill returns the "build" skill: it runs the project's build or
// test command through the terminal handler, so the command rules, the
// approval policy and the checkpoint apply exactly as they do to
// the command tool. Non-empty fields of configured override what
// detection finds.
func BuildSkill(configured projectctx.BuildCommands) Skill {
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

func runBuild(ctx context.Context, env SkillEnv, args json.RawMessage, configured projectctx.BuildCommands) SkillResult {
	var a struct {
		Action string `json:"action"`
		Args   string `json:"args"`
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return SkillResult{Text: `Error: the arguments must be {"action": "build"|"test", "args": "…"}`, Status: event.StatusError}
		}
	}
	action := strings.ToLower(strings.TrimSpace(a.Action))
	if action == "" {
		action = "build"
	}
	if action != "build" && action != "test" {
		return SkillResult{Text: fmt.Sprintf(`Error: unknown action %q; use "build" or "test"`, a.Action), Status: event.StatusError}
	}
	bc := configured
	if (action == "build" && bc.Build == "") || (action == "test" && bc.Test == "") {
		if env.Workspace == nil {
			return SkillResult{Text: "Error: " + ErrNoWorkspace.Error(), Status: event.StatusError}
		}
		found, err := projectctx.DetectBuild(env.Workspace.FS())
		if err != nil {
			return SkillResult{Text: "Error: " + err.Error() + ". Run the right command with the command tool instead.", Status: event.StatusError}
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
		return SkillResult{Text: fmt.Sprintf("Error: %v: the project has no %s command. Run the right command with the command tool.", projectctx.ErrNoBuildCommand, action), Status: event.StatusError}
	}
	if extra := strings.TrimSpace(a.Args); extra != "" {
		cmd += " " + extra // judged with the rest by the safety analysis
	}
	if env.RunCommand == nil {
		return SkillResult{Text: "Error: " + ErrSkillOutsideRun.Error(), Status: event.StatusError}
	}
	res := env.RunCommand(ctx, cmd)
	res.Text = "$ " + cmd + "\n" + res.Text
	return res
}
