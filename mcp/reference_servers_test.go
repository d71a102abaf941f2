package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// mountStdio connects to a reference server over stdio and registers
// its tools; the Confirmer, when given, answers confirm-level calls.
func mountStdio(t *testing.T, name, bin string, env []string, confirm Confirmer) (*Client, *tools.Registry) {
	t.Helper()
	ctx := context.Background()
	c, err := Connect(ctx, ServerConfig{Name: name, Command: bin, Env: env, Confirm: confirm,
		TerminateGrace: 3 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	reg := &tools.Registry{}
	_, err = c.Register(ctx, reg)
	require.NoError(t, err)
	return c, reg
}

// TestMemoryServer drives the knowledge-graph server: writes need a
// confirmation and reads do not, structured results reach the model once,
// and the graph is on disk where the host said.
func TestMemoryServer(t *testing.T) {
	bin := needServer(t, memoryBin)
	graph := filepath.Join(t.TempDir(), "graph.jsonl")
	var mu sync.Mutex
	var confirmed []string
	confirm := ConfirmFunc(func(_ context.Context, r ConfirmRequest) error {
		mu.Lock()
		defer mu.Unlock()
		confirmed = append(confirmed, r.Tool)
		return nil
	})
	_, reg := mountStdio(t, "mem", bin, []string{"MEMORY_FILE_PATH=" + graph}, confirm)

	for name, want := range map[string]safety.Decision{
		"mem__create_entities": safety.Confirm, "mem__delete_entities": safety.Confirm,
		"mem__read_graph": safety.Allow, "mem__search_nodes": safety.Allow, "mem__open_nodes": safety.Allow,
	} {
		dec, reasons, ok := DecisionOf(reg, name)
		require.True(t, ok, name)
		assert.Equal(t, want, dec, "%s: %v", name, reasons)
	}
	ok := func(name, args string) tools.Result {
		t.Helper()
		res := call(t, reg, name, args)
		require.False(t, res.IsError, "%s: %s", name, res.Text)
		return res
	}
	created := ok("mem__create_entities", `{"entities":[
		{"name":"Ada","entityType":"person","observations":["wrote the first program"]},
		{"name":"Engine","entityType":"machine","observations":["analytical"]}]}`)
	assert.Contains(t, created.Text, "wrote the first program")
	assert.NotContains(t, created.Text, "Structured result", "the text already is the structured result")
	ok("mem__create_relations", `{"relations":[{"from":"Ada","to":"Engine","relationType":"programmed"}]}`)
	ok("mem__add_observations", `{"observations":[{"entityName":"Ada","contents":["born 1815"]}]}`)

	found := ok("mem__search_nodes", `{"query":"analytical"}`)
	assert.Contains(t, found.Text, "Engine")
	assert.NotContains(t, found.Text, `"name": "Ada"`, "search finds only the matching node")
	opened := ok("mem__open_nodes", `{"names":["Ada"]}`)
	assert.Contains(t, opened.Text, "born 1815")

	read := ok("mem__read_graph", `{}`)
	var g struct {
		Entities []struct {
			Name         string   `json:"name"`
			Observations []string `json:"observations"`
		} `json:"entities"`
		Relations []struct{ From, To, RelationType string } `json:"relations"`
	}
	require.NoError(t, json.Unmarshal([]byte(read.Text), &g), "read_graph's text is the graph as JSON: %s", read.Text)
	require.Len(t, g.Entities, 2)
	require.Len(t, g.Relations, 1)
	assert.Equal(t, "programmed", g.Relations[0].RelationType)
	tool, _, err := reg.Lookup("mem__read_graph")
	require.NoError(t, err)
	assert.NotNil(t, tool.(*Tool).OutputSchema(), "the output schema is kept for hosts")

	disk, err := os.ReadFile(graph)
	require.NoError(t, err)
	assert.Contains(t, string(disk), "born 1815")

	// The model's mistakes come back as text it can act on.
	bad := call(t, reg, "mem__create_relations", `{"relations":[{"from":"Ada"}]}`)
	assert.True(t, bad.IsError)
	assert.Contains(t, bad.Text, "relationType")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"mem__create_entities", "mem__create_relations", "mem__add_observations"}, confirmed,
		"writes are confirmed, reads and refused arguments are not")
}

// TestSequentialThinkingServer: a stateful server keeps its history
// across calls on one connection, and arguments a small model writes as
// strings reach it as the numbers and booleans its schema wants.
func TestSequentialThinkingServer(t *testing.T) {
	bin := needServer(t, thinkingBin)
	_, reg := mountStdio(t, "think", bin, []string{"DISABLE_THOUGHT_LOGGING=true"}, nil)
	steps := []struct {
		args    string
		history int
	}{
		{`{"thought":"List the files.","nextThoughtNeeded":true,"thoughtNumber":1,"totalThoughts":3}`, 1},
		{`{"thought":"Read go.mod.","nextThoughtNeeded":"true","thoughtNumber":"2","totalThoughts":"3"}`, 2},
		{`{"thought":"Actually read README first.","nextThoughtNeeded":false,"thoughtNumber":3,"totalThoughts":3,"isRevision":true,"revisesThought":2}`, 3},
	}
	for _, s := range steps {
		res := call(t, reg, "think__sequentialthinking", s.args)
		require.False(t, res.IsError, res.Text)
		var got struct {
			ThoughtHistoryLength int `json:"thoughtHistoryLength"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.Text), &got), res.Text)
		assert.Equal(t, s.history, got.ThoughtHistoryLength)
	}
	bad := call(t, reg, "think__sequentialthinking", `{"thought":"x","nextThoughtNeeded":true,"thoughtNumber":"one","totalThoughts":3}`)
	assert.True(t, bad.IsError)
	assert.Contains(t, bad.Text, `"thoughtNumber" must be an integer, got the string "one"`)
}

// TestEverythingCancel: a caller that gives up on a long-running tool
// gets its answer at once (the SDK tells the server it is cancelled), and
// the connection still serves calls; over stdio and streamable HTTP.
func TestEverythingCancel(t *testing.T) {
	for name, cfgFor := range map[string]func(t *testing.T) ServerConfig{
		"stdio": func(t *testing.T) ServerConfig {
			return ServerConfig{Command: needServer(t, everythingBin), Args: []string{"stdio"}, TerminateGrace: 3 * time.Second}
		},
		"streamable_http": func(t *testing.T) ServerConfig {
			return ServerConfig{URL: startHTTPEverything(t, "streamableHttp") + "/mcp"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := cfgFor(t)
			cfg.Name = "ev"
			c, err := Connect(context.Background(), cfg)
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			var reg tools.Registry
			_, err = c.Register(context.Background(), &reg)
			require.NoError(t, err)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := make(chan struct{})
			var once sync.Once
			ctx = tools.WithReporter(ctx, func(tools.Progress) { once.Do(func() { close(first) }) })
			tool, _, err := reg.Lookup("ev__trigger-long-running-operation")
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() {
				_, err := tool.Execute(ctx, tools.Call{Name: "ev__trigger-long-running-operation",
					Arguments: []byte(`{"duration":120,"steps":120}`)})
				done <- err
			}()
			select {
			case <-first: // the call is running on the server
			case <-time.After(60 * time.Second):
				t.Fatal("no progress from the long-running operation")
			}
			cancel()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.True(t, errors.Is(err, context.Canceled), "%v", err)
			case <-time.After(30 * time.Second):
				t.Fatal("the cancelled call did not return")
			}
			res := call(t, &reg, "ev__echo", `{"message":"still here"}`)
			require.False(t, res.IsError, res.Text)
			assert.Contains(t, res.Text, "still here")
			assert.True(t, strings.HasPrefix(res.Text, "Echo: "), res.Text)
		})
	}
}
