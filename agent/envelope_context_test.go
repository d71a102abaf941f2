package agent

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
)

// TestEnvelopeSkillAndSubagent: the envelope's action types reach the skill
// (by its bare name) and the subagent tool.
func TestEnvelopeSkillAndSubagent(t *testing.T) {
	script := `{"capabilities":{"tools":false}}
{"content":"Planning.\n` + "```yips-agent" + `\n{\"actions\":[{\"type\":\"skill\",\"id\":\"s1\",\"name\":\"todos\",\"arguments\":{\"todos\":[{\"text\":\"Ask a helper\",\"status\":\"in_progress\"}]}},{\"type\":\"subagent\",\"id\":\"a1\",\"task\":\"Say what a.txt holds\",\"max_rounds\":2}]}\n` + "```" + `"}
{"content":"a.txt holds the letter a. [TASK_COMPLETE]"}
{"content":"Done: a.txt holds the letter a. [TASK_COMPLETE]"}`
	e := newEnv(t, script, map[string]string{"a.txt": "a"})
	cfg := e.config()
	cfg.ToolCalling = ToolCallingEnvelope
	cfg.Skills = []Skill{TodosSkill()}
	cfg.Subagents = &SubagentConfig{}
	res, err := e.run(cfg, "plan, then ask a helper")
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	acts := e.rec.actions()
	require.Len(t, acts, 2, "%+v", e.rec.types())
	require.Equal(t, "skill__todos", acts[0].Tool)
	require.Equal(t, event.StatusSuccess, acts[0].Status, acts[0].Output)
	require.Equal(t, SubagentToolName, acts[1].Tool)
	require.Equal(t, "a.txt holds the letter a.", acts[1].Output)
	require.Len(t, eventsOf[event.TodosUpdated](e.rec), 1)
	// The results went back as one "Action results:" message.
	last := e.model.Requests()[2].Messages
	require.Contains(t, last[len(last)-1].Content, "Action results:")
	require.Contains(t, last[len(last)-1].Content, "- id a1, subagent subagent: success")
}
