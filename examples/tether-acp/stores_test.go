package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/pgtest"
)

// TestMain keeps the developer's own settings out of the tests: the
// user settings file is looked up in an empty directory (tests that want
// one set XDG_CONFIG_HOME themselves), for the agents the tests start too.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acp-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := pgtest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// drive runs one agent process (run) over pipes: it sends each request
// and returns the responses by id.
func drive(t *testing.T, args []string, requests ...string) map[string]map[string]any {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), args, inR, outW, io.Discard)
		outW.Close()
		done <- code
	}()
	got := map[string]map[string]any{}
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 16<<20)
	for i, r := range requests {
		_, err := io.WriteString(inW, r+"\n")
		require.NoError(t, err)
		id := fmt.Sprint(i + 1)
		for got[id] == nil {
			require.True(t, sc.Scan(), "the agent ended before answering request %s", id)
			var m map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
			if _, isReq := m["method"]; !isReq {
				got[fmt.Sprint(m["id"])] = m
			}
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case code := <-done:
		require.Equal(t, 0, code)
	case <-time.After(60 * time.Second):
		t.Fatal("the agent did not exit within 60s of its input closing")
	}
	return got
}

// With -db postgres://…, a session created by one agent process is listed
// and loaded by another.
func TestSessionsInPostgres(t *testing.T) {
	dsn := pgtest.Database(t)
	ws := t.TempDir()
	script := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(`{"content":"Hello."}`+"\n"), 0o644))
	args := []string{"-model", "script:" + script, "-db", dsn, "-sandbox", "off"}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`
	first := drive(t, args, init, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, ws))
	require.Nil(t, first["2"]["error"])
	sid := first["2"]["result"].(map[string]any)["sessionId"].(string)

	second := drive(t, args, init,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cwd":%q}}`, ws),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/load","params":{"sessionId":%q,"cwd":%q,"mcpServers":[]}}`, sid, ws))
	b, _ := json.Marshal(second["2"])
	require.True(t, strings.Contains(string(b), sid), "session/list: %s", b)
	require.Nil(t, second["3"]["error"], "session/load: %v", second["3"])
	// The sessions were in PostgreSQL, not in a file named like the URL.
	require.True(t, isPostgres(dsn), "pgtest's connection string %q is not recognised as PostgreSQL", dsn)
	_, err := os.Stat(dsn)
	require.True(t, os.IsNotExist(err), "a file named %q was created", dsn)
}
