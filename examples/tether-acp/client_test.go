package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official ACP client library, pinned; .ci/run installs it.
const sdkInstall = "npm install -g @agentclientprotocol/sdk@2.4.0"

// needSDK returns the installed package's directory. Without node or the
// package the test skips with the install command, and fails under CI.
func needSDK(t *testing.T) string {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI must install it: %s", why, sdkInstall)
		}
		t.Skipf("%s; install Node.js, then: %s", why, sdkInstall)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not installed")
	}
	root, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		missing("npm is not installed")
	}
	dir := filepath.Join(strings.TrimSpace(string(root)), "@agentclientprotocol", "sdk")
	if _, err := os.Stat(filepath.Join(dir, "schema", "v1", "schema.json")); err != nil {
		missing("@agentclientprotocol/sdk is not installed")
	}
	return dir
}

// buildAgent builds this example into a temporary directory.
func buildAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tether-acp")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// scriptLines is the scripted model's session: a plan, a read, an edit of
// .env (allowed), one of .env.local (rejected), a command and the plan
// done; then a long command the editor cancels.
func scriptLines(pidFile string) string {
	todo := func(s1, s2 string) string {
		return fmt.Sprintf(`{"name":"todos","arguments":{"todos":[{"text":"Read the config","status":%q},{"text":"Configure and test","status":%q}]}}`, s1, s2)
	}
	lines := []string{
		`{"thinking":"Start with a plan.","content":"Planning.","tool_calls":[` + todo("in_progress", "pending") + `]}`,
		`{"content":"Reading.","tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}`,
		`{"content":"Noting.","tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"edited notes\n"}}]}`,
		`{"content":"Configuring.","tool_calls":[{"name":"write_file","arguments":{"path":".env","content":"MODE=dev\n"}}]}`,
		`{"content":"And locally.","tool_calls":[{"name":"write_file","arguments":{"path":".env.local","content":"SECRET=1\n"}}]}`,
		`{"content":"Testing.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo tests-passed"}}]}`,
		`{"content":"All done.","tool_calls":[` + todo("done", "done") + `]}`,
		`{"content":"Finished: .env is configured."}`,
		`{"content":"Running it.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"sleep 300 & echo $! > ` + pidFile + `; wait"}}]}`,
		`{"content":"never reached"}`,
	}
	return strings.Join(lines, "\n") + "\n"
}

// clientResult is what client.mjs prints.
type clientResult struct {
	Init        map[string]any                   `json:"init"`
	Session     map[string]any                   `json:"session"`
	Turn        map[string]any                   `json:"turn"`
	Cancelled   map[string]any                   `json:"cancelled"`
	Updates     []map[string]any                 `json:"updates"`
	Permissions []map[string]any                 `json:"permissions"`
	SleeperPid  int                              `json:"sleeperPid"`
	AliveBefore bool                             `json:"sleeperAliveBeforeCancel"`
	List        map[string]any                   `json:"list"`
	Load        map[string]any                   `json:"load"`
	Replayed    []string                         `json:"replayed"`
	Undo        map[string]any                   `json:"undo"`
	Exit        map[string]any                   `json:"exit"`
	Reads       []string                         `json:"reads"`
	Writes      []struct{ Path, Content string } `json:"writes"`
}

func runClient(t *testing.T, sdk, phase string, env []string) clientResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "client.mjs"), phase)
	cmd.Env = append(os.Environ(), append(env, "SDK="+sdk)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Run(), "client.mjs %s: %s\n%s", phase, o.String(), e.String())
	var r clientResult
	require.NoError(t, json.Unmarshal(o.Bytes(), &r), "client.mjs %s printed: %s\nstderr: %s", phase, o.String(), e.String())
	return r
}

// TestOfficialClient has the official ACP library drive the agent through
// a turn with a plan, a read, an allowed and a rejected edit and a
// command; a cancelled long command; and, in a new process, the session
// listed, loaded and its turn undone. Every message the agent sent is
// validated against the protocol's JSON schema shipped in the package.
func TestOfficialClient(t *testing.T) {
	sdk := needSDK(t)
	bin := buildAgent(t)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("config notes\n"), 0o644))
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "sleeper.pid")
	script := filepath.Join(tmp, "script.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(scriptLines(pidFile)), 0o644))
	transcript := filepath.Join(tmp, "transcript.jsonl")
	args, _ := json.Marshal([]string{"-model", "script:" + script, "-db", filepath.Join(tmp, "acp.db"), "-log-level", "warn"})
	aTxt := filepath.Join(ws, "a.txt")
	env := []string{"AGENT=" + bin, "AGENT_ARGS=" + string(args), "WS=" + ws, "TRANSCRIPT=" + transcript, "SLEEPER_PID=" + pidFile}

	// In the first process the editor has a.txt open with unsaved text.
	r := runClient(t, sdk, "turn", append(env, "BUFFER_PATH="+aTxt, "BUFFER_TEXT=unsaved notes\n"))
	assert.EqualValues(t, 1, r.Init["protocolVersion"])
	sid, _ := r.Session["sessionId"].(string)
	require.NotEmpty(t, sid)
	assert.Equal(t, "end_turn", r.Turn["stopReason"])

	kinds := map[string]bool{}
	var plans, thoughts, texts int
	var sawDiff, sawOutput, sawBuffer bool
	for _, u := range r.Updates {
		if k, ok := u["kind"].(string); ok {
			kinds[k] = true
		}
		switch u["sessionUpdate"] {
		case "tool_call_update":
			b, _ := json.Marshal(u["content"])
			sawDiff = sawDiff || (strings.Contains(string(b), `"type":"diff"`) && strings.Contains(string(b), "MODE=dev"))
			sawOutput = sawOutput || strings.Contains(string(b), "tests-passed")
			sawBuffer = sawBuffer || strings.Contains(string(b), "unsaved notes")
		case "plan":
			plans++
		case "agent_thought_chunk":
			thoughts++
		case "agent_message_chunk":
			texts++
		}
	}
	for _, k := range []string{"think", "read", "edit", "execute"} {
		assert.True(t, kinds[k], "no tool call of kind %s; kinds seen: %v", k, kinds)
	}
	assert.GreaterOrEqual(t, plans, 2, "the plan is sent when written and when done")
	var commands []any
	for _, u := range r.Updates {
		if u["sessionUpdate"] == "available_commands_update" {
			commands, _ = u["availableCommands"].([]any)
		}
	}
	assert.Len(t, commands, 3, "undo, review and compact are advertised")
	assert.Positive(t, thoughts)
	assert.Positive(t, texts)
	assert.True(t, sawDiff, "the edit of .env is shown as a diff")
	assert.True(t, sawOutput, "the command's output is shown")

	// Files through the editor: a.txt is read from its unsaved buffer, and
	// the edits are written through the editor, never the rejected one.
	assert.Contains(t, r.Reads, aTxt)
	assert.True(t, sawBuffer, "the model read the unsaved buffer")
	written := map[string]string{}
	for _, w := range r.Writes {
		written[w.Path] = w.Content
	}
	assert.Equal(t, "edited notes\n", written[aTxt])
	assert.Equal(t, "MODE=dev\n", written[filepath.Join(ws, ".env")])
	assert.NotContains(t, written, filepath.Join(ws, ".env.local"))

	// Three permission cards, each showing exactly what will happen and
	// the options its severity allows: the .env edit (allowed), the
	// .env.local edit (rejected), the long command (allowed).
	require.Len(t, r.Permissions, 3, "permission requests: %v", r.Permissions)
	for i, p := range r.Permissions {
		b, _ := json.Marshal(p)
		if i < 2 {
			assert.Contains(t, string(b), `"type":"diff"`)
		} else {
			assert.Contains(t, string(b), "sleep 300")
		}
		assert.Contains(t, string(b), `"allow_once"`)
		assert.Contains(t, string(b), `"allow_always"`, "not critical: allow always is offered")
		assert.Contains(t, string(b), `"reject_always"`)
	}
	env1, err := os.ReadFile(filepath.Join(ws, ".env"))
	require.NoError(t, err)
	assert.Equal(t, "MODE=dev\n", string(env1))
	assert.NoFileExists(t, filepath.Join(ws, ".env.local"), "the rejected edit must not be written")

	// Cancel during the long command: the turn says so and no process is left.
	assert.Equal(t, "cancelled", r.Cancelled["stopReason"])
	require.Positive(t, r.SleeperPid)
	assert.True(t, r.AliveBefore, "the long command was running when cancelled")
	assert.Eventually(t, func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", r.SleeperPid))
		return os.IsNotExist(err) || zombie(r.SleeperPid)
	}, 30*time.Second, 100*time.Millisecond, "the cancelled command's process %d is still running", r.SleeperPid)
	assert.EqualValues(t, 0, r.Exit["code"], "the agent exits 0 when the editor closes its input")

	// A new process: the session is listed, loaded (its turns replayed)
	// and its last file-changing turn undone.
	r2 := runClient(t, sdk, "restart", append(env, "SESSION="+sid))
	b, _ := json.Marshal(r2.List)
	assert.Contains(t, string(b), sid)
	assert.Contains(t, r2.Replayed, "user_message_chunk")
	assert.Contains(t, r2.Replayed, "agent_message_chunk")
	assert.Contains(t, r2.Replayed, "tool_call")
	assert.Equal(t, "end_turn", r2.Undo["stopReason"])
	assert.NoFileExists(t, filepath.Join(ws, ".env"), "/undo removes the file the turn created")
	// a.txt is restored to what the model read (the buffer), through the editor.
	require.Len(t, r2.Writes, 1, "undo's writes through the editor: %v", r2.Writes)
	assert.Equal(t, aTxt, r2.Writes[0].Path)
	assert.Equal(t, "unsaved notes\n", r2.Writes[0].Content)
	got, err := os.ReadFile(aTxt)
	require.NoError(t, err)
	assert.Equal(t, "unsaved notes\n", string(got))

	n := validateTranscript(t, sdk, transcript)
	t.Logf("%d agent messages validated against the ACP schema", n)
}

// zombie reports a process that has exited but is not yet reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}
