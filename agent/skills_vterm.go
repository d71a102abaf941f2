package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// VirtualTerminalSkill returns the envelope's "virtual_terminal" skill as a
// thin mapping onto the run's persistent shell: {"command": "…"} runs
// exactly as the command tool would (command rules, approval,
// checkpoints, the shell's current directory and environment carried
// from call to call), so the skill adds no second way to run commands and
// no second set of checks. Read-only modes have no shell to offer, and
// say so.
func VirtualTerminalSkill() Skill {
	return vtermSkill{SkillFunc{Spec: tools.Spec{
		Name: "virtual_terminal",
		Description: "Run a command in the session's persistent terminal: the working directory and exported variables carry over between calls. " +
			`Example: {"command": "cd web && npm test"}. Returns the output and exit code.`,
		Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"The shell command to run."}},"required":["command"]}`),
	}, Run: runVirtualTerminal}}
}

// vtermSkill submits its command to the terminal handler, which judges
// it like any command call; the skill call itself is not asked
// about as a whole.
type vtermSkill struct{ SkillFunc }

func (vtermSkill) judgesItself() {}

func runVirtualTerminal(ctx context.Context, env SkillEnv, args json.RawMessage) SkillResult {
	var a struct {
		Command string `json:"command"`
		Cmd     string `json:"cmd"` // a name small models use
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return SkillResult{Text: `Error: the arguments must be {"command": "…"}`, Status: event.StatusError}
	}
	cmd := strings.TrimSpace(a.Command)
	if cmd == "" {
		cmd = strings.TrimSpace(a.Cmd)
	}
	if cmd == "" {
		return SkillResult{Text: `Error: "command" is empty: give the shell command to run`, Status: event.StatusError}
	}
	if env.RunCommand == nil {
		return SkillResult{Text: fmt.Sprintf("Error: virtual_terminal cannot run commands in %s mode, which only reads.", env.Mode), Status: event.StatusDenied}
	}
	return env.RunCommand(ctx, cmd)
}
