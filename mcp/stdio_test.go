package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

func TestJSONRPCLines(t *testing.T) {
	type rejected struct {
		line, id string
		parse    bool
	}
	cases := []struct {
		name     string
		in       string
		out      string
		rejected []rejected
	}{
		{"messages pass, one a line", "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n  {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
			"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", nil},
		{"a banner and blank lines are dropped", "Server v1 running on stdio\n\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n",
			"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n", []rejected{{"Server v1 running on stdio", "", true}}},
		{"JSON that is not JSON-RPC keeps its id", "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":7}\n{\"hello\":1}\n", "",
			[]rejected{{`{"jsonrpc":"2.0","id":"x","method":7}`, `"x"`, false}, {`{"hello":1}`, "", false}}},
		{"a batch passes, an empty or bad one does not", "[{\"jsonrpc\":\"2.0\",\"method\":\"a\"}]\n[]\n[1]\n",
			"[{\"jsonrpc\":\"2.0\",\"method\":\"a\"}]\n", []rejected{{"[]", "", false}, {"[1]", "", false}}},
		{"a last line without newline", "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}", "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n", nil},
		{"half a message", "{\"jsonrpc\":\"2.0\",\n\"method\":\"a\"}\n", "", []rejected{{`{"jsonrpc":"2.0",`, "", true}, {`"method":"a"}`, "", true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []rejected
			r := jsonRPCLines(strings.NewReader(c.in), checkMessage, func(line []byte, id json.RawMessage, why error) {
				got = append(got, rejected{string(line), string(id), strings.HasPrefix(why.Error(), "parse error")})
			})
			out, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, c.out, string(out))
			assert.Equal(t, c.rejected, got)
		})
	}
	t.Run("a line over the limit ends the stream", func(t *testing.T) {
		long := strings.NewReader(`{"x":"` + strings.Repeat("a", 17<<20) + "\"}\n")
		_, err := io.ReadAll(jsonRPCLines(long, checkMessage, func([]byte, json.RawMessage, error) { t.Error("not a rejection") }))
		assert.ErrorContains(t, err, "longer than")
	})
}

// TestServerBannerOnStdout: a stdio server that greets on stdout before
// speaking the protocol is used, and the greeting is logged, not fatal.
func TestServerBannerOnStdout(t *testing.T) {
	ws := workspace(t, map[string]string{"hello.txt": "hello\n"})
	logs := &logSink{}
	c, err := Connect(context.Background(), ServerConfig{Name: "chatty", Command: os.Args[0],
		Env:    []string{"TETHER_MCP_TEST_SERVE=" + ws.Root(), "TETHER_MCP_TEST_BANNER=Secure MCP Filesystem Server running on stdio"},
		Rules:  Rules{Allow: []string{"*"}},
		Logger: slog.New(logs), TerminateGrace: 10 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	var reg tools.Registry
	_, err = c.Register(context.Background(), &reg)
	require.NoError(t, err)
	res := call(t, &reg, "chatty__read_file", `{"path":"hello.txt"}`)
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "hello")
	assert.True(t, logs.has("not JSON-RPC"), "the banner is logged")
	assert.Contains(t, c.stderrNote(), "Secure MCP Filesystem Server running on stdio", "and kept for error reports")
}

// TestServeStdioAnswersBadLines: a client's malformed line gets a
// JSON-RPC error, with the request's id when it had one, and the session
// goes on.
func TestServeStdioAnswersBadLines(t *testing.T) {
	srv := builtinServer(t, workspace(t, nil), ServeOptions{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, stdioServerTransport(inR, outW)) }()
	defer func() {
		inW.Close()
		cancel()
		<-done
		outW.Close()
	}()
	replies := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				replies <- m
			}
		}
		close(replies)
	}()
	send := func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	next := func() map[string]any {
		select {
		case m := <-replies:
			return m
		case <-time.After(30 * time.Second):
			t.Fatal("no reply")
			return nil
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	assert.Equal(t, float64(1), next()["id"])
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// One bad line at a time, each answered before the next is sent, so
	// the order of replies is the order of lines.
	for _, c := range []struct {
		line string
		id   any
		code float64
	}{
		{`garbage{`, nil, -32700},
		{`{"jsonrpc":"2.0","id":9,"method":7}`, float64(9), -32600},
		{`{"hello":"world"}`, nil, -32600},
	} {
		send(c.line)
		m := next()
		assert.Equal(t, c.id, m["id"], c.line)
		require.Contains(t, m, "error", c.line)
		assert.Equal(t, c.code, m["error"].(map[string]any)["code"], c.line)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_files","arguments":{}}}`)
	m := next()
	assert.Equal(t, float64(2), m["id"])
	assert.Contains(t, m, "result", "the session went on")
}
