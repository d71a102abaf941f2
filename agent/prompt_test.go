package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/projectctx"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/tools"
)

// promptRegistry is a fixed tool set for the prompt golden files: file
// tools, search, two code-intelligence tools, the terminal, the skills
// and the subagent tool.
func promptRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	noop := func(context.Context, tools.Call) (tools.Result, error) { return tools.Text("ok"), nil }
	obj := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	reg := &tools.Registry{}
	for _, s := range []tools.Spec{
		{Name: "read_file", Description: "Read a file.", ReadOnly: true, Parameters: obj(`"path":{"type":"string","description":"File to read."}`)},
		{Name: "search_workspace", Description: "Search the workspace.", ReadOnly: true, Parameters: obj(`"query":{"type":"string"},"isRegex":{"type":"boolean"}`),
			Guidance: []tools.Guidance{{Section: tools.SectionSearch, Line: "search_workspace finds text in files. Set isRegex=true when you are unsure of the exact text."}}},
		{Name: "find_definition", Description: "Go to a symbol's definition.", ReadOnly: true, Parameters: obj(`"path":{"type":"string"},"symbolName":{"type":"string"}`),
			Guidance: []tools.Guidance{{Section: tools.SectionNavigation, Line: "Use find_definition to follow a function or method call to its source."}}},
		{Name: "get_document_symbols", Description: "Outline a file.", ReadOnly: true, Parameters: obj(`"path":{"type":"string"}`),
			Guidance: []tools.Guidance{{Section: tools.SectionNavigation, Line: "Use get_document_symbols before reading a large file."}}},
		{Name: "write_file", Description: "Write a whole file.", Parameters: obj(`"path":{"type":"string"},"content":{"type":"string"}`),
			Guidance: []tools.Guidance{{Section: tools.SectionRules, Line: "write_file replaces the whole file: send the complete content."}}},
		{Name: "run_terminal_command", Description: "Run a shell command.", Parameters: obj(`"command":{"type":"string"}`)},
	} {
		require.NoError(t, reg.Register(tools.Func{Spec: s, Run: noop}))
	}
	return reg
}

// TestPromptGolden pins the system prompt of every mode in every
// tool-calling mode. Run with -update after an intended change and
// review the diff.
func TestPromptGolden(t *testing.T) {
	x, err := New(Config{Model: llmtest.NewScripted(llmtest.Script{}), Tools: promptRegistry(t),
		Skills: []Skill{TodosSkill(), BuildSkill(projectctx.BuildCommands{})}, Subagents: &SubagentConfig{}})
	require.NoError(t, err)
	mem := &Memory{FilesRead: []string{"main.go"}, Commands: []CommandNote{{Command: "go test ./...", Status: event.StatusError, Detail: "exit code 1"}},
		Plan: []event.TodoItem{{Text: "Find the bug", Status: event.TodoDone}, {Text: "Fix it", Status: event.TodoInProgress}}}
	for _, mode := range []Mode{ModeAgent, ModeExplore, ModePlan, ModeReview} {
		for _, calling := range []ToolCalling{ToolCallingNative, ToolCallingText, ToolCallingEnvelope} {
			t.Run(fmt.Sprintf("%s_%s", mode, calling), func(t *testing.T) {
				spec := builtinMode(mode)
				reg := x.cfg.Tools.Filter(spec.offers)
				pb := promptBuilder{mode: spec, calling: calling, names: reg.Names(), guide: reg.Guidance, extra: "Answer in English.",
					project: "## AGENTS.md\nRun go vet before committing.", memory: mem.Render()}
				if calling != ToolCallingNative {
					pb.tools = reg.Prompt()
				}
				got := pb.system()
				require.Equal(t, got, pb.system(), "the prompt must be deterministic")
				golden(t, filepath.Join("testdata", "prompts", fmt.Sprintf("%s_%s.txt", mode, calling)), got)

				require.Contains(t, got, "USER-PROVIDED CONTEXT:")
				require.Contains(t, got, "SEARCH TIPS:")
				require.Contains(t, got, "CODE NAVIGATION STRATEGY:")
				require.Contains(t, got, "find_definition")
				require.NotContains(t, got, "find_references", "only offered tools get a navigation line")
				require.True(t, strings.HasSuffix(got, mem.Render()), "memory comes last, after the stable prefix")
				if calling == ToolCallingText {
					require.Contains(t, got, `<tool_call>{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}</tool_call>`)
					require.Contains(t, got, "### read_file")
				}
				if calling == ToolCallingEnvelope {
					require.Contains(t, got, "```yips-agent")
					require.Contains(t, got, `"type": "subagent"`)
				}
				if mode.ReadOnly() {
					require.NotContains(t, got, "### write_file")
				}
			})
		}
	}
}

func TestPromptSectionsFollowTheTools(t *testing.T) {
	pb := promptBuilder{mode: builtinMode(ModeAgent), calling: ToolCallingNative, names: []string{"read_file"}}
	got := pb.system()
	require.NotContains(t, got, "SEARCH TIPS")
	require.NotContains(t, got, "CODE NAVIGATION STRATEGY")
	require.NotContains(t, got, "SKILLS AND SUBAGENTS")
	require.NotContains(t, got, "PROJECT CONTEXT")
	require.NotContains(t, got, "SESSION MEMORY")
	require.Contains(t, got, "USER-PROVIDED CONTEXT")
}

// golden compares got with the file at path, rewriting it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	require.Equal(t, string(want), got)
}
