package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools/fstools"
)

const mainGo = "package main\n\nfunc main() {\n\tprintln(\"Helo\")\n}\n"

// Multi-step edits in native mode: read, then an edit and a new file in
// one batch, then completion; the checkpoint undoes both.
func TestNativeMultiStepEditAndUndo(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true,"thinking":true}}
{"thinking":"I should read main.go first.","tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}
{"thinking":"The greeting has a typo.","content":"Fixing the typo.","tool_calls":[{"name":"edit_file","arguments":{"path":"main.go","old_text":"Helo","new_text":"Hello"}},{"name":"write_file","arguments":{"path":"docs/NOTES.md","content":"fixed typo\n"}}]}
{"content":"Fixed the greeting typo in main.go and wrote docs/NOTES.md. [TASK_COMPLETE]"}
`, map[string]string{"main.go": mainGo})
	x, err := New(e.config())
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "Fix the typo in main.go and add a note"})
	require.NoError(t, err)

	assert.Equal(t, event.StopCompleted, res.StopReason)
	assert.Equal(t, ToolCallingNative, res.ToolCalling)
	assert.Equal(t, 3, res.Iterations)
	assert.Equal(t, "Fixed the greeting typo in main.go and wrote docs/NOTES.md.", res.FinalMessage)
	assert.Contains(t, e.read("main.go"), `println("Hello")`)
	assert.Equal(t, "fixed typo\n", e.read("docs/NOTES.md"))
	require.NotEmpty(t, res.CheckpointID)
	require.Len(t, res.FilesChanged, 2)
	assert.Equal(t, event.FileChange{Path: "main.go", Kind: "modified", Added: 1, Removed: 1}, res.FilesChanged[0])
	assert.Equal(t, event.FileChange{Path: "docs/NOTES.md", Kind: "added", Added: 1}, res.FilesChanged[1])
	assert.Positive(t, res.Usage.PromptTokens)

	// History: native results are role-tool messages, in call order.
	var roles []string
	for _, m := range res.History {
		roles = append(roles, string(m.Role))
	}
	assert.Equal(t, []string{"user", "assistant", "tool", "assistant", "tool", "tool", "assistant"}, roles)
	assert.Equal(t, "I should read main.go first.", res.History[1].Thinking)
	require.Len(t, res.History[1].ToolCalls, 1)
	assert.Equal(t, "read_file", res.History[2].ToolName)
	assert.Equal(t, res.History[1].ToolCalls[0].ID, res.History[2].ToolCallID)
	assert.Equal(t, "Fixing the typo.", res.History[3].Content)
	assert.Equal(t, []string{"edit_file", "write_file"}, []string{res.History[4].ToolName, res.History[5].ToolName})

	reqs := e.model.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, llm.RoleSystem, reqs[0].Messages[0].Role)
	assert.NotEmpty(t, reqs[0].Tools, "native mode sends tool specs")
	assert.NotContains(t, reqs[0].Messages[0].Content, "<tool_call>", "native mode does not describe the call format")

	// Edits are reported with their stats and checkpoint.
	acts := e.rec.actions()
	require.Len(t, acts, 3)
	assert.Equal(t, event.StatusSuccess, acts[1].Status)
	assert.Equal(t, "main.go", acts[1].Path)
	assert.Equal(t, 1, acts[1].Added)
	assert.Equal(t, res.CheckpointID, acts[1].CheckpointID)
	fcs := eventsOf[event.FilesChanged](e.rec)
	require.Len(t, fcs, 2, "one after the writing batch, one final")
	assert.True(t, fcs[1].Final)

	// Undo restores the pre-images and removes what the agent created.
	rep, err := x.Undo(context.Background(), res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"main.go"}, rep.Restored)
	assert.Equal(t, mainGo, e.read("main.go"))
	assert.False(t, e.exists("docs/NOTES.md"))
	assert.False(t, e.exists("docs"))
	assert.Error(t, x.Keep(context.Background(), res.CheckpointID), "an undone checkpoint cannot be kept")
	_, err = x.Undo(context.Background(), "", checkpoint.UndoOptions{})
	assert.ErrorIs(t, err, checkpoint.ErrNotFound)
}

// The same task in text mode: calls written as <tool_call> blocks,
// results gathered into one user message, markup never displayed.
func TestTextModeMultiStepEdit(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":false}}
{"content":"Let me look at the file first.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}</tool_call>"}
{"content":"<tool_call>{\"name\": \"edit_file\", \"arguments\": {\"path\": \"main.go\", \"old_text\": \"Helo\", \"new_text\": \"Hello\"}}</tool_call>\n<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"NOTES.md\", \"content\": \"done\\n\"}}</tool_call>"}
{"content":"All fixed. [TASK_COMPLETE]"}
`, map[string]string{"main.go": mainGo})
	res, err := e.run(e.config(), "Fix the typo in main.go")
	require.NoError(t, err)
	assert.Equal(t, event.StopCompleted, res.StopReason)
	assert.Equal(t, ToolCallingText, res.ToolCalling)
	assert.Contains(t, e.read("main.go"), "Hello")
	assert.Equal(t, "done\n", e.read("NOTES.md"))
	assert.Equal(t, "All fixed.", res.FinalMessage)

	reqs := e.model.Requests()
	require.Len(t, reqs, 3)
	assert.Empty(t, reqs[0].Tools, "text mode sends no specs")
	sys := reqs[0].Messages[0].Content
	assert.Contains(t, sys, `<tool_call>{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}</tool_call>`)
	assert.Contains(t, sys, "### read_file")
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	assert.Equal(t, llm.RoleUser, last.Role)
	assert.Equal(t, 2, strings.Count(last.Content, "<tool_result "), "both results in one user message")
	assert.Contains(t, last.Content, `name="edit_file" status="success"`)
	assert.Contains(t, reqs[1].Messages[2].Content, "<tool_call>", "the assistant's own calls stay in its message")

	shown := e.rec.text()
	assert.NotContains(t, shown, "<tool_call")
	assert.NotContains(t, shown, "TASK")
	assert.Contains(t, shown, "Let me look at the file first.")
}

// A long read_file is reported with its 100-line chunks, one
// click-to-open range each.
func TestChunkedReadReported(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_file","arguments":{"path":"long.txt"}}]}
{"content":"It is long."}
`, map[string]string{"long.txt": strings.Repeat("line\n", 250)})
	_, err := e.run(e.config(), "How long is long.txt?")
	require.NoError(t, err)
	acts := e.rec.actions()
	require.Len(t, acts, 1)
	require.Len(t, acts[0].Chunks, 3)
	assert.Equal(t, 201, acts[0].Chunks[2].Start)
	assert.Equal(t, 250, acts[0].Chunks[2].End)
}

// Every built-in file tool goes through the file-edit handler: renames,
// line edits, patches and new folders are all in the checkpoint, and one
// undo puts the workspace back.
func TestAllFileToolsUndoable(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"rename_file","arguments":{"path":"old.txt","new_path":"moved/new.txt"}},{"name":"modify_lines","arguments":{"path":"lines.txt","operation":"replace","start_line":2,"content":"TWO"}},{"name":"patch_file","arguments":{"path":"p.txt","diff":"--- a/p.txt\n+++ b/p.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n"}},{"name":"create_folder","arguments":{"path":"newdir/sub"}}]}
{"content":"Reorganised. [TASK_COMPLETE]"}
`, map[string]string{"old.txt": "old\n", "lines.txt": "one\ntwo\nthree\n", "p.txt": "alpha\nbeta\n"})
	require.NoError(t, e.reg.Register(fstools.NewRename(e.ws), fstools.NewModifyLines(e.ws), fstools.NewPatch(e.ws), fstools.NewFolder(e.ws)))
	x, err := New(e.config())
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "Move old.txt, fix line 2 and patch p.txt"})
	require.NoError(t, err)
	acts := e.rec.actions()
	require.Len(t, acts, 4)
	for _, a := range acts {
		assert.Equal(t, event.StatusSuccess, a.Status, a.Tool+": "+a.Output)
	}
	assert.Equal(t, "old\n", e.read("moved/new.txt"))
	assert.Equal(t, "one\nTWO\nthree\n", e.read("lines.txt"))
	assert.Equal(t, "alpha\nBETA\n", e.read("p.txt"))
	assert.Equal(t, groupEditing, eventsOf[event.ProgressGroupStarted](e.rec)[0].Title)

	_, err = x.Undo(context.Background(), res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.Equal(t, "old\n", e.read("old.txt"))
	assert.False(t, e.exists("moved/new.txt"))
	assert.Equal(t, "one\ntwo\nthree\n", e.read("lines.txt"))
	assert.Equal(t, "alpha\nbeta\n", e.read("p.txt"))
}
