package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official MCP clients, installed from npm by .ci/run (pinned there);
// the tests skip when node or a client is missing.
const (
	inspectorInstall = "npm install -g @modelcontextprotocol/inspector@2.12.0"
	sdkInstall       = "npm install -g @modelcontextprotocol/sdk@1.32.2"
)

func needNode(t *testing.T, install string) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed; install Node.js, then: " + install)
	}
}

// runNode runs a node program with a private HOME (nothing of the
// machine's configuration, nothing written outside the test) and returns
// its standard output, standard error and exit code.
func runNode(t *testing.T, dir string, name string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err, "%s: %s", name, e.String())
	}
	return o.String(), e.String(), code
}

// serveHTTP starts "serve -http" on a free loopback port and returns its
// base URL.
func serveHTTP(t *testing.T, bin, ws string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve", "-workspace", ws, "-http", addr)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "server did not listen: %s", &stderr)
	return "http://" + addr
}

// TestInspectorCLI drives the serve subcommand with the MCP Inspector's
// command-line client, over stdio and streamable HTTP.
func TestInspectorCLI(t *testing.T) {
	needNode(t, inspectorInstall)
	inspector, err := exec.LookPath("mcp-inspector")
	if err != nil {
		t.Skip("mcp-inspector is not installed; run: " + inspectorInstall)
	}
	bin := binary(t)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("alpha\nbeta\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=s3cret\n"), 0o644))
	stdio := []string{"--", bin, "serve", "-workspace", ws}
	url := serveHTTP(t, bin, ws)
	cases := []struct {
		name    string
		args    []string
		code    int
		want    []string
		wantNot []string
	}{
		{"tools/list", []string{"--method", "tools/list"}, 0,
			[]string{`"name": "read_file"`, `"readOnlyHint": true`, `"outputSchema"`, `"title": "Read file"`}, nil},
		{"tools/call", []string{"--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=notes.txt"}, 0,
			[]string{`2\tbeta`, `"structuredContent"`}, []string{`"isError": true`}},
		{"bad arguments are a tool error the model can read", []string{"--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "bogus=1"}, 5,
			[]string{`"isError": true`, `missing required \"path\"`, `unexpected \"bogus\"`}, nil},
		{"a secret is refused with the reason", []string{"--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=.env"}, 5,
			[]string{`"isError": true`, "denied by policy"}, []string{"s3cret"}},
		{"unknown tool", []string{"--method", "tools/call", "--tool-name", "no_such_tool"}, 5,
			[]string{"no_such_tool"}, nil},
		{"resources/list", []string{"--method", "resources/list"}, 0, []string{`"resources": []`}, nil},
		{"resources/templates/list", []string{"--method", "resources/templates/list"}, 0, []string{`"resourceTemplates": []`}, nil},
		{"prompts/list", []string{"--method", "prompts/list"}, 0, []string{`"prompts": []`}, nil},
		{"logging/setLevel", []string{"--method", "logging/setLevel", "--log-level", "debug"}, 0, []string{"{}"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runNode(t, ws, inspector, append(append([]string{"--cli"}, c.args...), stdio...)...)
			assert.Equal(t, c.code, code, "stdout: %s\nstderr: %s", out, errOut)
			for _, w := range c.want {
				assert.Contains(t, out+errOut, w) // the CLI writes its errors as JSON to either
			}
			for _, w := range c.wantNot {
				assert.NotContains(t, out+errOut, w)
			}
		})
	}
	// The Inspector picks the transport from the path: /mcp is streamable
	// HTTP, /sse the legacy HTTP+SSE transport.
	for _, path := range []string{"/mcp", "/sse"} {
		t.Run("over HTTP at "+path, func(t *testing.T) {
			out, errOut, code := runNode(t, ws, inspector, "--cli", url+path, "--method", "tools/call",
				"--tool-name", "search_workspace", "--tool-arg", "query=beta")
			require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
			assert.Contains(t, out, "notes.txt")
		})
	}
}

// sdkReport is what testdata/sdkclient.mjs observed.
type sdkReport struct {
	Handshakes map[string]struct {
		Negotiated  string `json:"negotiated"`
		ToolCount   int    `json:"toolCount"`
		Failure     string `json:"failure"`
		UnknownTool struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Result json.RawMessage `json:"result"`
		} `json:"unknownTool"`
	} `json:"handshakes"`
	Tools []struct {
		Name            string `json:"name"`
		HasOutputSchema bool   `json:"hasOutputSchema"`
	} `json:"tools"`
	Read, BadArgs, WrongType, Unknown, Ping, Cancelled sdkOutcome
	Progress                                           struct {
		IsError       bool `json:"isError"`
		Notifications []struct {
			Progress float64 `json:"progress"`
			Message  string  `json:"message"`
		} `json:"notifications"`
	}
}

// sdkOutcome is a call's result, or what the SDK threw.
type sdkOutcome struct {
	Thrown  string `json:"thrown"`
	Code    int    `json:"code"`
	IsError bool   `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// TestTypeScriptSDKClient runs the official TypeScript SDK's client
// against the serve subcommand over stdio, streamable HTTP and legacy
// SSE: over stdio, handshakes offering each protocol version; on every
// transport, a session that validates structured results against the
// tools' output schemas.
func TestTypeScriptSDKClient(t *testing.T) {
	needNode(t, sdkInstall)
	root, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		t.Skip("npm is not installed; install Node.js, then: " + sdkInstall)
	}
	modules := strings.TrimSpace(string(root))
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol/sdk/package.json")); err != nil {
		t.Skip("the MCP TypeScript SDK is not installed; run: " + sdkInstall)
	}
	script, err := filepath.Abs("testdata/sdkclient.mjs")
	require.NoError(t, err)
	bin := binary(t)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("alpha\nbeta\n"), 0o644))
	base := serveHTTP(t, bin, ws)

	// Over stdio, a call the client cancels ends the command it started.
	stdioWS := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(stdioWS, "notes.txt"), []byte("alpha\nbeta\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(stdioWS, "slow.sh"), []byte("echo $$ > pid.txt\nexec sleep 120\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(stdioWS, "lines.sh"), []byte("echo first line\necho second line\n"+
		"i=0; while [ ! -e ack ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n"), 0o644))

	for _, target := range [][]string{
		{"stdio", bin, "serve", "-workspace", stdioWS, "-allow", "sh slow.sh,sh lines.sh"},
		{"http", base + "/mcp"},
		{"sse", base + "/sse"},
	} {
		t.Run(target[0], func(t *testing.T) {
			dir := ws
			if target[0] == "stdio" {
				dir = stdioWS
			}
			out, errOut, code := runNode(t, dir, "node", append([]string{script, modules, "notes.txt"}, target...)...)
			require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
			var r sdkReport
			require.NoError(t, json.Unmarshal([]byte(out), &r), out)
			if target[0] == "stdio" {
				checkHandshakes(t, r)
				checkCancelled(t, r, filepath.Join(stdioWS, "pid.txt"))
				checkProgress(t, r)
			}
			checkSDKSession(t, r)
		})
	}
}

func checkHandshakes(t *testing.T, r sdkReport) {
	t.Helper()
	for offered, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2099-01-01": "2025-11-25", // unknown: the server answers with the newest it speaks
	} {
		h, ok := r.Handshakes[offered]
		require.True(t, ok, offered)
		require.Empty(t, h.Failure, offered)
		assert.Equal(t, want, h.Negotiated, "offered %s", offered)
		assert.Greater(t, h.ToolCount, 5, "offered %s", offered)
		require.NotNil(t, h.UnknownTool.Error, "offered %s: an unknown tool is a protocol error, not a tool result", offered)
		assert.Equal(t, -32602, h.UnknownTool.Error.Code)
		assert.Contains(t, h.UnknownTool.Error.Message, `unknown tool "no_such_tool"`)
	}
}

func checkSDKSession(t *testing.T, r sdkReport) {
	t.Helper()
	names := map[string]bool{}
	for _, tl := range r.Tools {
		names[tl.Name] = tl.HasOutputSchema
	}
	assert.True(t, names["read_file"], "read_file has an output schema: %v", names)
	require.Empty(t, r.Read.Thrown, "the SDK accepts the structured result against the output schema")
	require.False(t, r.Read.IsError)
	require.NotEmpty(t, r.Read.Content)
	assert.Contains(t, r.Read.Content[0].Text, "2\tbeta")

	assert.Empty(t, r.BadArgs.Thrown)
	assert.True(t, r.BadArgs.IsError, "bad arguments are a tool error the model can correct")
	require.NotEmpty(t, r.BadArgs.Content)
	assert.Contains(t, r.BadArgs.Content[0].Text, `unexpected "bogus"`)
	assert.True(t, r.WrongType.IsError, "a number for a path names no file")

	assert.Equal(t, -32602, r.Unknown.Code)
	assert.Contains(t, r.Unknown.Thrown, "no_such_tool")
	assert.Empty(t, r.Ping.Thrown)
}

// checkCancelled: the client's cancellation reached the server, which
// killed the command it was running.
func checkCancelled(t *testing.T, r sdkReport, pidFile string) {
	t.Helper()
	assert.Contains(t, r.Cancelled.Thrown, "cancelled by the test")
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err, "the command ran")
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		// Signal 0 probes for the process; a zombie is already dead.
		err := syscall.Kill(pid, 0)
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || bytes.Contains(stat, []byte(") Z "))
	}, 30*time.Second, 50*time.Millisecond, "the cancelled command's process %d is gone", pid)
}

// checkProgress: a command's output reached the client as progress
// notifications, in order and before the result.
func checkProgress(t *testing.T, r sdkReport) {
	t.Helper()
	require.False(t, r.Progress.IsError)
	require.NotEmpty(t, r.Progress.Notifications, "no progress notification arrived")
	var msgs []string
	last := 0.0
	for _, n := range r.Progress.Notifications {
		assert.Greater(t, n.Progress, last, "progress increases")
		last = n.Progress
		msgs = append(msgs, n.Message)
	}
	all := strings.Join(msgs, "\n")
	assert.Contains(t, all, "first line")
	assert.Contains(t, all, "second line")
}
