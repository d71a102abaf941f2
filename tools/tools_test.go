package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type readArgs struct {
	Path      string   `json:"path" jsonschema:"description=File to read"`
	StartLine int      `json:"start_line,omitempty" jsonschema:"minimum=1"`
	Mode      string   `json:"mode,omitempty" jsonschema:"enum=text,enum=hex"`
	Follow    bool     `json:"follow,omitempty"`
	Tags      []string `json:"tags,omitempty"`
}

func echoTool() Tool {
	return New("read_file", "Read a file.", func(_ context.Context, a readArgs) (Result, error) {
		b, _ := json.Marshal(a)
		return Text(string(b)), nil
	}, ReadOnly())
}

func TestNormaliseAndValidate(t *testing.T) {
	var r Registry
	require.NoError(t, r.Register(echoTool()))
	tests := []struct {
		name, tool, args string
		want             string // JSON of decoded args, or an error substring
		isErr            bool
	}{
		{"plain", "read_file", `{"path":"a.go"}`, `{"path":"a.go"}`, false},
		{"file alias", "read_file", `{"file":"a.go"}`, `"path":"a.go"`, false},
		{"filePath alias", "read_file", `{"filePath":"a.go"}`, `"path":"a.go"`, false},
		{"file_path alias", "read_file", `{"file_path":"a.go"}`, `"path":"a.go"`, false},
		{"alias and name agree", "read_file", `{"file":"a","path":"a"}`, `{"path":"a"}`, false},
		{"alias and name conflict", "read_file", `{"file":"b","path":"a"}`, `path given twice: b (file) and a (path)`, true},
		{"two aliases conflict", "read_file", `{"target_file":"notes.md","fileName":".env"}`, `path given twice: notes.md (target_file) and .env (fileName)`, true},
		{"key repeated", "read_file", `{"path":"notes.md","path":".env"}`, `path given twice: notes.md (path) and .env (path)`, true},
		{"target_file alias", "read_file", `{"target_file":"a.go"}`, `"path":"a.go"`, false},
		{"camelCase key", "read_file", `{"path":"a","startLine":3}`, `"start_line":3`, false},
		{"stringified args", "read_file", `"{\"path\":\"a.go\"}"`, `"path":"a.go"`, false},
		{"number as string", "read_file", `{"path":"a","start_line":"12"}`, `"start_line":12`, false},
		{"bool as string", "read_file", `{"path":"a","follow":"true"}`, `"follow":true`, false},
		{"lone value for array", "read_file", `{"path":"a","tags":"x"}`, `"tags":["x"]`, false},
		{"stringified array", "read_file", `{"path":"a","tags":"[\"x\",\"y\"]"}`, `"tags":["x","y"]`, false},
		{"number for string", "read_file", `{"path":7}`, `"path":"7"`, false},
		{"alias name", "cat", `{"path":"a"}`, `"path":"a"`, false},
		{"camel name", "readFile", `{"path":"a"}`, `"path":"a"`, false},
		{"missing required", "read_file", `{}`, `missing required "path" (string): File to read`, true},
		{"mistyped", "read_file", `{"path":"a","start_line":"ten"}`, `"start_line" must be an integer, got the string "ten"`, true},
		{"below minimum", "read_file", `{"path":"a","start_line":0}`, `"start_line" must be at least 1`, true},
		{"enum", "read_file", `{"path":"a","mode":"bin"}`, `"mode" must be one of "text", "hex"`, true},
		{"unknown key reported on failure", "read_file", `{"pth":"a"}`, `unexpected "pth"`, true},
		{"not an object", "read_file", `[1,2]`, `arguments must be a JSON object`, true},
		{"broken json", "read_file", `{"path":`, `arguments must be a JSON object`, true},
		{"unknown tool", "frobnicate", `{}`, `unknown tool "frobnicate". Available tools: read_file`, true},
		{"suggestion", "read_fil", `{}`, `Did you mean "read_file"?`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Execute(context.Background(), Call{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			assert.Equal(t, tt.isErr, res.IsError, res.Text)
			assert.Contains(t, res.Text, tt.want)
			if tt.isErr && strings.Contains(tt.want, "arguments") {
				assert.Contains(t, res.Text, "Expected arguments:")
			}
		})
	}
}

func TestArgumentErrorIsTyped(t *testing.T) {
	_, err := echoTool().Execute(context.Background(), Call{Arguments: json.RawMessage(`{}`)})
	var ae *ArgumentError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, ErrInvalidArguments)
	assert.Equal(t, "read_file", ae.Tool)
	assert.Contains(t, ae.Shape, `"path": string (required): File to read`)
}

func TestFailuresBecomeResults(t *testing.T) {
	var r Registry
	require.NoError(t, r.Register(
		Func{Spec: Spec{Name: "boom"}, Run: func(context.Context, Call) (Result, error) { panic("kaboom") }},
		Func{Spec: Spec{Name: "fail"}, Run: func(context.Context, Call) (Result, error) { return Result{}, errors.New("disk on fire") }},
		Func{Spec: Spec{Name: "slow", Timeout: 50 * time.Millisecond}, Run: func(ctx context.Context, _ Call) (Result, error) {
			<-ctx.Done()
			return Result{}, context.Cause(ctx)
		}},
		Func{Spec: Spec{Name: "ctxerr", Timeout: 50 * time.Millisecond}, Run: func(ctx context.Context, _ Call) (Result, error) {
			<-ctx.Done()
			return Result{}, ctx.Err()
		}},
		Func{Spec: Spec{Name: "partial", Timeout: 50 * time.Millisecond}, Run: func(ctx context.Context, _ Call) (Result, error) {
			<-ctx.Done()
			return Text("half done"), nil
		}},
	))
	ctx := context.Background()
	res := r.Execute(ctx, Call{Name: "boom"})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "tool panicked: kaboom")
	res = r.Execute(ctx, Call{Name: "fail"})
	assert.Equal(t, "Error: disk on fire", res.Text)
	res = r.Execute(ctx, Call{Name: "slow"})
	assert.True(t, res.IsError)
	assert.True(t, res.Meta.TimedOut)
	assert.Contains(t, res.Text, "slow did not finish within 50ms")
	res = r.Execute(ctx, Call{Name: "ctxerr"})
	assert.True(t, res.Meta.TimedOut)
	assert.Contains(t, res.Text, "ctxerr did not finish within 50ms")
	res = r.Execute(ctx, Call{Name: "partial"})
	assert.False(t, res.IsError)
	assert.True(t, res.Meta.TimedOut)
	assert.Equal(t, "half done", res.Text)
}

func TestRegistryNamesAndNamespaces(t *testing.T) {
	var r Registry
	require.NoError(t, r.Register(echoTool()))
	assert.ErrorIs(t, r.Register(echoTool()), ErrDuplicateTool)
	assert.ErrorIs(t, r.Register(Func{Spec: Spec{Name: "bad name"}}), ErrInvalidName)
	mcp := Func{Spec: Spec{Name: "fetch", Description: "Fetch a URL."}, Run: func(context.Context, Call) (Result, error) { return Text("fetched"), nil }}
	require.NoError(t, r.RegisterNamespace("web", mcp))
	assert.Equal(t, []string{"read_file", "web__fetch"}, r.Names())

	_, name, err := r.Lookup("fetch") // bare name, unique across namespaces
	require.NoError(t, err)
	assert.Equal(t, "web__fetch", name)
	require.NoError(t, r.RegisterNamespace("other", mcp))
	_, _, err = r.Lookup("fetch") // now ambiguous
	assert.ErrorIs(t, err, ErrUnknownTool)

	specs := r.Specs()
	require.Len(t, specs, 3)
	assert.Equal(t, "web__fetch", specs[1].Name)
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(specs[1].Parameters))

	ro := r.ReadOnly()
	assert.Equal(t, []string{"read_file"}, ro.Names())
	r.Unregister("web" + NamespaceSep)
	assert.Equal(t, []string{"read_file", "other__fetch"}, r.Names())

	r.Alias("slurp", "read_file")
	_, name, err = r.Lookup("slurp")
	require.NoError(t, err)
	assert.Equal(t, "read_file", name)
	_, _, err = r.Lookup("ls") // default alias whose target is absent
	var ue *UnknownToolError
	require.ErrorAs(t, err, &ue)
}

// TestReplaceIsOneStep: while a namespace is replaced over and over, a
// call to one of its tools always finds it (before, a refresh removed the
// namespace and added it back in two steps, and a call in between was
// answered "unknown tool").
func TestReplaceIsOneStep(t *testing.T) {
	var r Registry
	fetch := func(text string) Tool {
		return Func{Spec: Spec{Name: "srv__fetch", Description: "Fetch."}, Run: func(context.Context, Call) (Result, error) { return Text(text), nil }}
	}
	require.NoError(t, r.Replace("srv"+NamespaceSep, fetch("first")))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			if err := r.Replace("srv"+NamespaceSep, fetch("again")); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		res := r.Execute(context.Background(), Call{Name: "srv__fetch", Arguments: []byte(`{}`)})
		require.False(t, res.IsError, res.Text)
	}
	assert.Equal(t, []string{"srv__fetch"}, r.Names())

	// A failing replacement changes nothing.
	err := r.Replace("srv"+NamespaceSep, fetch("x"), fetch("x"))
	assert.ErrorIs(t, err, ErrDuplicateTool)
	assert.Equal(t, "again", r.Execute(context.Background(), Call{Name: "srv__fetch", Arguments: []byte(`{}`)}).Text)
	// An empty name removes nothing; a duplicate then is one.
	assert.ErrorIs(t, r.Replace("", fetch("y")), ErrDuplicateTool)
}

func TestSchemaInference(t *testing.T) {
	spec := echoTool().Describe()
	var sc map[string]any
	require.NoError(t, json.Unmarshal(spec.Parameters, &sc))
	assert.Equal(t, "object", sc["type"])
	assert.Equal(t, []any{"path"}, sc["required"])
	props := sc["properties"].(map[string]any)
	assert.Equal(t, "File to read", props["path"].(map[string]any)["description"])
	assert.NotContains(t, string(spec.Parameters), "$schema")
	assert.True(t, spec.ReadOnly)
}

func TestPrompt(t *testing.T) {
	var r Registry
	require.NoError(t, r.Register(echoTool()))
	p := r.Prompt()
	assert.Contains(t, p, "### read_file\nRead a file.\nArguments:\n")
	assert.Contains(t, p, `  "path": string (required): File to read`)
	assert.Contains(t, p, `  "mode": string one of "text", "hex"`)
	// Declared order is kept.
	assert.Less(t, strings.Index(p, `"path"`), strings.Index(p, `"start_line"`))
}

func TestNewPanicsOnBadDefinition(t *testing.T) {
	assert.Panics(t, func() { New("x y", "", func(context.Context, readArgs) (Result, error) { return Result{}, nil }) })
	assert.Panics(t, func() { New("x", "", func(context.Context, int) (Result, error) { return Result{}, nil }) })
}

func TestToolIgnoringCancellation(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the grace period")
	}
	var r Registry
	release := make(chan struct{})
	defer close(release)
	require.NoError(t, r.Register(Func{Spec: Spec{Name: "stuck", Timeout: 20 * time.Millisecond},
		Run: func(context.Context, Call) (Result, error) { <-release; return Text("late"), nil }}))
	start := time.Now()
	res := r.Execute(context.Background(), Call{Name: "stuck"})
	assert.True(t, res.IsError)
	assert.True(t, res.Meta.TimedOut)
	assert.Contains(t, res.Text, "stuck did not finish within 20ms and was stopped")
	assert.Less(t, time.Since(start), timeoutGrace+2*time.Second)
}

func TestCancelledContext(t *testing.T) {
	var r Registry
	require.NoError(t, r.Register(Func{Spec: Spec{Name: "wait"}, Run: func(ctx context.Context, _ Call) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err()
	}}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Execute(ctx, Call{Name: "wait"})
	assert.True(t, res.IsError)
	assert.Equal(t, "Error: wait was cancelled: context canceled", res.Text)
}

// An open-ended schema (additionalProperties) keeps the keys it allows;
// a closed one drops what it does not declare.
func TestOpenSchemaKeepsExtraKeys(t *testing.T) {
	var r Registry
	echo := func(name, params string) Tool {
		return Func{Spec: Spec{Name: name, Parameters: json.RawMessage(params)},
			Run: func(_ context.Context, c Call) (Result, error) { return Text(string(c.Arguments)), nil }}
	}
	require.NoError(t, r.Register(
		echo("open_tool", `{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":true}`),
		echo("closed_tool", `{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`)))
	res := r.Execute(context.Background(), Call{Name: "open_tool", Arguments: json.RawMessage(`{"file":"a","labels":{"x":1}}`)})
	assert.JSONEq(t, `{"path":"a","labels":{"x":1}}`, res.Text)
	res = r.Execute(context.Background(), Call{Name: "closed_tool", Arguments: json.RawMessage(`{"file":"a","labels":{"x":1}}`)})
	assert.JSONEq(t, `{"path":"a"}`, res.Text)
}
