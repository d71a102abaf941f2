package agent

import (
	"context"
	"encoding/json"

	"github.com/tetherdev/tether/tools"
)

// FetchSkill returns the "fetch" skill of the envelope protocol
// on top of a read_webpage tool (webtools.NewRead with the host's
// Fetcher): the same arguments ({"url": …, "start_line": …}), the same
// address and domain policy, the same Markdown. The skill is read-only
// and open-world, as the tool declares; read-only modes may use it.
func FetchSkill(readWebpage tools.Tool) Skill {
	spec := readWebpage.Describe()
	spec.Name = "fetch"
	return SkillFunc{Spec: spec, Run: func(ctx context.Context, _ SkillEnv, args json.RawMessage) SkillResult {
		return skillResultOf(readWebpage.Execute(ctx, tools.Call{Name: readWebpage.Describe().Name, Arguments: args}))
	}}
}

// skillResultOf maps a tool's answer to a skill's.
func skillResultOf(res tools.Result, err error) SkillResult {
	switch {
	case err != nil:
		return SkillResult{Text: "Error: " + err.Error(), Status: StatusError, Detail: firstLine(err.Error())}
	case res.IsError:
		return SkillResult{Text: res.Text, Status: StatusError, Detail: firstLine(res.Text)}
	}
	return SkillResult{Text: res.Text, Detail: firstLine(res.Text)}
}
