package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// foreignServer is a plain SDK server (not Tether's) with the tools the
// protocol tests need.
func foreignServer(t testing.TB) *sdk.Server {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "foreign", Version: "1"},
		&sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Tools: &sdk.ToolCapabilities{}}})
	type none struct{}
	sdk.AddTool(srv, &sdk.Tool{Name: "count", Description: "Reports progress, then returns."},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct {
			N int `json:"n"`
		}) (*sdk.CallToolResult, any, error) {
			for i := 1; i <= in.N; i++ {
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(),
					Progress: float64(i), Total: float64(in.N), Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, nil, err
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
		})
	// Requests to the client go the protocol's current way: the tool
	// returns input requests, and the client calls again with the answers.
	sdk.AddTool(srv, &sdk.Tool{Name: "ask_model", Description: "Samples the client's model."},
		func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["s"].(*sdk.CreateMessageWithToolsResult); ok {
				return &sdk.CallToolResult{Content: r.Content}, nil, nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"s": &sdk.CreateMessageParams{MaxTokens: 10,
				Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "say hi"}}}}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "ask_user", Description: "Elicits a form."},
		func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["e"].(*sdk.ElicitResult); ok {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "action=" + r.Action}}}, nil, nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"e": &sdk.ElicitParams{Mode: "form", Message: "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "ask_visit", Description: "Elicits a URL visit."},
		func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["u"].(*sdk.ElicitResult); ok {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "action=" + r.Action}}}, nil, nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"u": &sdk.ElicitParams{Mode: "url", Message: "Sign in",
				URL: "https://example.com/login", ElicitationID: "e1"}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "slow", Description: "Waits.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late"}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "read", Description: "Reads a file.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in struct {
			Path string `json:"path"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "contents of " + in.Path}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "log", Description: "Logs at warning level."},
		func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			err := req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Data: "disk almost full", Logger: "fs"})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "logged"}}}, nil, err
		})
	return srv
}

func registered(t *testing.T, c *Client) *tools.Registry {
	t.Helper()
	var reg tools.Registry
	_, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	return &reg
}

// TestForeignProgressComplete: every notification of a server that is
// not Tether arrives, with its progress, total and message, before the
// call returns; repeated to catch the result overtaking them.
func TestForeignProgressComplete(t *testing.T) {
	c := connectInProcess(t, foreignServer(t), ServerConfig{Rules: Rules{Allow: []string{"*"}}})
	reg := registered(t, c)
	for range 20 {
		var mu sync.Mutex
		var got []tools.Progress
		ctx := tools.WithReporter(context.Background(), func(p tools.Progress) { mu.Lock(); got = append(got, p); mu.Unlock() })
		res := reg.Execute(ctx, tools.Call{Name: "srv__count", Arguments: []byte(`{"n":50}`)})
		require.False(t, res.IsError, res.Text)
		mu.Lock()
		require.Len(t, got, 50)
		assert.Equal(t, tools.Progress{Tool: "srv__count", Done: 50, Total: 50, Message: "step 50"}, got[49])
		mu.Unlock()
	}
}

func TestSamplingRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		approver approval.Approver
		want     string
		isError  bool
	}{
		{"approved", approval.Func(func(context.Context, approval.Request) (approval.Response, error) {
			return approval.Response{Choice: approval.AllowOnce}, nil
		}), "hi!", false},
		{"answer refused", approval.Func(func(_ context.Context, r approval.Request) (approval.Response, error) {
			if strings.Contains(r.Summary, "Send this answer") {
				return approval.Response{Choice: approval.Deny, Message: "not that"}, nil
			}
			return approval.Response{Choice: approval.AllowOnce}, nil
		}), "not that", true},
		{"no approver", nil, "no approver", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewScripted(llmtest.Script{Turns: []llmtest.Turn{{Content: "hi!"}}})
			c := connectInProcess(t, foreignServer(t), ServerConfig{Rules: Rules{Allow: []string{"*"}}, SamplingModel: model, Approver: tt.approver})
			res := registered(t, c).Execute(context.Background(), tools.Call{Name: "srv__ask_model", Arguments: []byte(`{}`)})
			assert.Equal(t, tt.isError, res.IsError, res.Text)
			assert.Contains(t, res.Text, tt.want)
		})
	}
}

func TestElicitationDefaults(t *testing.T) {
	var shown []string
	approver := approval.Func(func(_ context.Context, r approval.Request) (approval.Response, error) {
		shown = append(shown, r.Summary)
		return approval.Response{Choice: approval.AllowOnce}, nil
	})
	tests := []struct {
		name string
		tool string
		cfg  ServerConfig
		want string
	}{
		{"headless declines", "ask_user", ServerConfig{}, "action=decline"},
		{"headless declines a URL", "ask_visit", ServerConfig{}, "action=decline"},
		{"the approver is shown the URL", "ask_visit", ServerConfig{Approver: approver}, "action=accept"},
		{"an approver cannot fill a form", "ask_user", ServerConfig{Approver: approval.Func(func(context.Context, approval.Request) (approval.Response, error) {
			return approval.Response{Choice: approval.AllowOnce}, nil
		})}, "action=decline"},
		{"callback answers", "ask_user", ServerConfig{Elicit: func(_ context.Context, r ElicitRequest) (ElicitResult, error) {
			if r.Mode != "form" || r.Message != "Your name?" {
				return ElicitResult{}, errors.New("unexpected request")
			}
			return ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}}, "action=accept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Rules = Rules{Allow: []string{"*"}}
			c := connectInProcess(t, foreignServer(t), tt.cfg)
			res := registered(t, c).Execute(context.Background(), tools.Call{Name: "srv__" + tt.tool, Arguments: []byte(`{}`)})
			assert.Contains(t, res.Text, tt.want)
		})
	}
	require.Len(t, shown, 1, "only the URL request reached this approver")
	assert.Contains(t, shown[0], "https://example.com/login")
}

func TestCallTimeout(t *testing.T) {
	c := connectInProcess(t, foreignServer(t), ServerConfig{CallTimeout: 100 * time.Millisecond})
	start := time.Now()
	res := registered(t, c).Execute(context.Background(), tools.Call{Name: "srv__slow", Arguments: []byte(`{}`)})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "call timeout of 100ms")
	assert.Less(t, time.Since(start), 4*time.Second)
}

func TestServerLogReachesSlog(t *testing.T) {
	sink := &logSink{}
	c := connectInProcess(t, foreignServer(t), ServerConfig{Rules: Rules{Allow: []string{"*"}}, Logger: slog.New(sink)})
	registered(t, c).Execute(context.Background(), tools.Call{Name: "srv__log", Arguments: []byte(`{}`)})
	assert.Eventually(t, func() bool { return sink.has("WARN disk almost full") }, 5*time.Second, 10*time.Millisecond)
}

func TestSlogLevels(t *testing.T) {
	for in, want := range map[sdk.LoggingLevel]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "notice": slog.LevelInfo,
		"warning": slog.LevelWarn, "error": slog.LevelError, "critical": slog.LevelError, "emergency": slog.LevelError} {
		assert.Equal(t, want, slogLevel(in), in)
	}
	l := slog.New(slog.NewTextHandler(nil, &slog.HandlerOptions{Level: slog.LevelWarn}))
	assert.Equal(t, sdk.LoggingLevel("warning"), mcpLevel(context.Background(), l))
}

func TestServerEnv(t *testing.T) {
	host := []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=sk", "AWS_SECRET_ACCESS_KEY=x", "TERM=xterm", "BASH_FUNC_f%%=() { :; }", "SHELL=() { evil; }"}
	tests := []struct {
		name       string
		configured []string
		inherit    bool
		want       []string
	}{
		{"default keeps only the safe list", nil, false, []string{"PATH=/bin", "HOME=/h", "TERM=xterm"}},
		{"configured added and winning", []string{"TOKEN=t", "PATH=/opt"}, false, []string{"PATH=/opt", "HOME=/h", "TERM=xterm", "TOKEN=t"}},
		{"inherit is explicit", nil, true, []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=sk", "AWS_SECRET_ACCESS_KEY=x", "TERM=xterm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, serverEnv(host, tt.configured, tt.inherit))
		})
	}
}

func TestDecideAnnotations(t *testing.T) {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}
	tests := []struct {
		name    string
		rules   Rules
		ann     *sdk.ToolAnnotations
		inherit bool
		want    safety.Decision
		reason  string
	}{
		{"read-only hint allows", Rules{}, ro, false, safety.Allow, "annotates"},
		{"no hint confirms", Rules{}, nil, false, safety.Confirm, "is not annotated read-only"},
		{"ignored hints", Rules{IgnoreAnnotations: true}, ro, false, safety.Confirm, "ignored"},
		{"inherited environment voids the hint", Rules{}, ro, true, safety.Confirm, "InheritEnv"},
		{"an allow rule still allows", Rules{Allow: []string{"t"}}, nil, true, safety.Allow, "allow rule"},
		{"deny wins", Rules{Allow: []string{"*"}, Deny: []string{"t"}}, ro, false, safety.Deny, "deny rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec, reasons := decide(tt.rules, "s", "t", tt.ann, tt.inherit)
			assert.Equal(t, tt.want, dec)
			assert.Contains(t, reasons[0], tt.reason)
		})
	}
}

func TestRootsValidatedAndUpdated(t *testing.T) {
	_, err := Connect(context.Background(), ServerConfig{Name: "x", Command: "true", Roots: []string{"relative/dir"}})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `root "relative/dir": use an absolute directory path`)

	dir := t.TempDir()
	c := connectInProcess(t, foreignServer(t), ServerConfig{Roots: []string{dir}})
	assert.Equal(t, []string{"file://" + dir}, c.Roots())
	other := t.TempDir()
	require.NoError(t, c.SetRoots(dir, other))
	assert.Equal(t, []string{"file://" + dir, "file://" + other}, c.Roots())
}

// TestConnectErrorsSayWhatWasTried: a URL that speaks no MCP names both
// transports tried, without a doubled "mcp:" prefix.
func TestConnectErrorsSayWhatWasTried(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	_, err := Connect(context.Background(), ServerConfig{Name: "web", URL: hs.URL})
	require.ErrorIs(t, err, ErrTransport)
	msg := err.Error()
	assert.Contains(t, msg, `mcp: cannot connect to server "web": tried streamable HTTP: `)
	assert.Contains(t, msg, "; then legacy HTTP+SSE: ")
	assert.Equal(t, 1, strings.Count(msg, "mcp:"), msg)
}

// TestAnnotationCannotApproveSecrets: a read-only hint lets a call run
// unasked only when its arguments name no file that may hold secrets.
func TestAnnotationCannotApproveSecrets(t *testing.T) {
	tests := []struct {
		name    string
		rules   Rules
		path    string
		allowed bool
	}{
		{"plain file", Rules{}, "notes/todo.txt", true},
		{"ssh key", Rules{}, "/home/u/.ssh/id_rsa", false},
		{"dotenv as URI", Rules{}, "file:///srv/app/.env", false},
		{"windows path", Rules{}, `C:\Users\u\.aws\credentials`, false},
		{"the host's own allow rule decides", Rules{Allow: []string{"read"}}, "/home/u/.ssh/id_rsa", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := connectInProcess(t, foreignServer(t), ServerConfig{Rules: tt.rules})
			args, _ := json.Marshal(map[string]string{"path": tt.path})
			res := registered(t, c).Execute(context.Background(), tools.Call{Name: "srv__read", Arguments: args})
			if tt.allowed {
				assert.False(t, res.IsError, res.Text)
				return
			}
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text, "a read-only annotation cannot approve reading it")
			assert.NotContains(t, res.Text, "contents of")
		})
	}
}
