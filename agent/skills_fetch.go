package agent

import (
	"context"
	"encoding/json"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// FetchSkill returns the "fetch" skill of the envelope protocol
// on top of the host's web page reading tool (webtools.NewRead with its
// Fetcher): the same arguments ({"url": …, "start_line": …}), the same
// address and domain policy, the same Markdown. The skill is read-only
// and open-world and declares each call as the tool does, so it is
// approved as that tool is: unasked only for a domain the host
// allows, otherwise asked (and refused where no one can be asked).
func FetchSkill(readWebpage tools.Tool) Skill {
	spec := readWebpage.Describe()
	spec.Name = "fetch"
	return fetchSkill{SkillFunc{Spec: spec, Run: func(ctx context.Context, _ SkillEnv, args json.RawMessage) SkillResult {
		return skillResultOf(readWebpage.Execute(ctx, tools.Call{Name: readWebpage.Describe().Name, Arguments: args}))
	}}, readWebpage}
}

// fetchSkill is the fetch skill with its tool's declarations.
type fetchSkill struct {
	SkillFunc
	tool tools.Tool
}

// Effects declares a call as the tool declares it; for a tool that
// declares nothing, what its Spec says of every call.
func (s fetchSkill) Effects(ctx context.Context, call tools.Call) (tools.Effects, error) {
	d, ok := s.tool.(tools.Declarer)
	if !ok {
		return specEffects(s.tool.Describe()), nil
	}
	call.Name = s.tool.Describe().Name
	return d.Effects(ctx, call)
}

// skillResultOf maps a tool's answer to a skill's.
func skillResultOf(res tools.Result, err error) SkillResult {
	switch {
	case err != nil:
		return SkillResult{Text: "Error: " + err.Error(), Status: event.StatusError, Detail: firstLine(err.Error())}
	case res.IsError:
		return SkillResult{Text: res.Text, Status: event.StatusError, Detail: firstLine(res.Text)}
	}
	return SkillResult{Text: res.Text, Detail: firstLine(res.Text)}
}
