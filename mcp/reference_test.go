package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// The official reference servers, installed from npm by .ci/run with
// these pinned versions; the tests skip when node or a server is missing.
const (
	everythingBin = "mcp-server-everything"
	filesystemBin = "mcp-server-filesystem"
	memoryBin     = "mcp-server-memory"
	thinkingBin   = "mcp-server-sequential-thinking"
)

// npmPackages maps each server's command to the package that installs it.
var npmPackages = map[string]string{
	everythingBin: "@modelcontextprotocol/server-everything@2026.8.31",
	filesystemBin: "@modelcontextprotocol/server-filesystem@2026.8.31",
	memoryBin:     "@modelcontextprotocol/server-memory@2026.8.31",
	thinkingBin:   "@modelcontextprotocol/server-sequential-thinking@2026.8.31",
}

func needServer(t *testing.T, bin string) string {
	t.Helper()
	install := "npm install -g " + npmPackages[bin]
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed; install Node.js, then: " + install)
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		t.Skip(bin + " is not installed; run: " + install)
	}
	return p
}

// startHTTPEverything runs server-everything's HTTP transport ("streamableHttp"
// or "sse") on a free loopback port and returns its base URL.
func startHTTPEverything(t *testing.T, mode string) string {
	t.Helper()
	bin := needServer(t, everythingBin)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "server-everything %s did not listen: %s", mode, &stderr)
	return "http://" + addr
}

// logSink collects slog records.
type logSink struct {
	mu   sync.Mutex
	recs []string
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r.Level.String()+" "+r.Message)
	return nil
}
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *logSink) WithGroup(string) slog.Handler      { return s }
func (s *logSink) has(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.recs {
		if strings.Contains(r, sub) {
			return true
		}
	}
	return false
}

// everythingHarness is one connection to server-everything with every
// host hook recorded.
type everythingHarness struct {
	c        *Client
	reg      tools.Registry
	logs     *logSink
	asked    []approval.Request
	elicited []ElicitRequest
	updates  chan ResourceUpdate
	model    *llmtest.ScriptedModel
	mu       sync.Mutex
}

func connectEverything(t *testing.T, cfg ServerConfig) *everythingHarness {
	t.Helper()
	h := &everythingHarness{logs: &logSink{}, updates: make(chan ResourceUpdate, 16),
		model: llmtest.NewScripted(llmtest.Script{Turns: []llmtest.Turn{{Content: "Paris is the capital of France."}}})}
	cfg.Name = "ev"
	cfg.Logger = slog.New(h.logs)
	cfg.Rules = Rules{Allow: []string{"*"}}
	cfg.SamplingModel = h.model
	cfg.Roots = []string{t.TempDir()}
	cfg.Approver = approval.Func(func(_ context.Context, r approval.Request) (approval.Response, error) {
		h.mu.Lock()
		h.asked = append(h.asked, r)
		h.mu.Unlock()
		return approval.Response{Choice: approval.AllowOnce}, nil
	})
	cfg.Elicit = func(_ context.Context, r ElicitRequest) (ElicitResult, error) {
		h.mu.Lock()
		h.elicited = append(h.elicited, r)
		h.mu.Unlock()
		return ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}
	cfg.OnResourceUpdated = func(u ResourceUpdate) {
		select {
		case h.updates <- u:
		default:
		}
	}
	cfg.TerminateGrace = 3 * time.Second
	ctx := context.Background()
	c, err := Connect(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	h.c = c
	_, err = c.Register(ctx, &h.reg)
	require.NoError(t, err)
	// The server adds the tools that depend on the client's capabilities
	// right after the handshake and says its list changed.
	require.Eventually(t, func() bool { return slicesHas(h.reg.Names(), "ev__trigger-sampling-request") },
		10*time.Second, 20*time.Millisecond, "list change re-registered: %v", h.reg.Names())
	return h
}

func slicesHas(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestEverything runs every client capability against the reference
// server, over stdio, streamable HTTP and the legacy HTTP+SSE transport.
func TestEverything(t *testing.T) {
	transports := map[string]func(t *testing.T) ServerConfig{
		"stdio": func(t *testing.T) ServerConfig {
			return ServerConfig{Command: needServer(t, everythingBin), Args: []string{"stdio"}}
		},
		"streamable_http": func(t *testing.T) ServerConfig {
			return ServerConfig{URL: startHTTPEverything(t, "streamableHttp") + "/mcp"}
		},
		"legacy_sse": func(t *testing.T) ServerConfig {
			return ServerConfig{URL: startHTTPEverything(t, "sse") + "/sse", LegacySSE: true}
		},
	}
	for name, cfgFor := range transports {
		t.Run(name, func(t *testing.T) {
			h := connectEverything(t, cfgFor(t))
			ctx := context.Background()
			run := func(tool, args string) tools.Result {
				t.Helper()
				res := h.reg.Execute(ctx, tools.Call{Name: "ev__" + tool, Arguments: []byte(args)})
				require.False(t, res.IsError, "%s: %s", tool, res.Text)
				return res
			}

			t.Run("progress", func(t *testing.T) {
				var mu sync.Mutex
				var got []tools.Progress
				pctx := tools.WithReporter(ctx, func(p tools.Progress) { mu.Lock(); got = append(got, p); mu.Unlock() })
				res := h.reg.Execute(pctx, tools.Call{Name: "ev__trigger-long-running-operation", Arguments: []byte(`{"duration":0.5,"steps":5}`)})
				require.False(t, res.IsError, res.Text)
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, got, 5, "every notification before the result: %+v", got)
				for i, p := range got {
					assert.Equal(t, float64(i+1), p.Done)
					assert.Equal(t, float64(5), p.Total)
					assert.Equal(t, "ev__trigger-long-running-operation", p.Tool)
				}
			})
			t.Run("resources", func(t *testing.T) {
				list := run(listResourcesTool, `{}`)
				assert.Contains(t, list.Text, "demo://resource/static/document/")
				assert.Contains(t, list.Text, "URI templates")
				links := run("get-resource-links", `{"count":2}`)
				require.Contains(t, links.Text, "read it with ev__"+readResourceTool)
				uri := strings.Fields(links.Text[strings.Index(links.Text, "[resource link: ")+len("[resource link: "):])[0]
				read := run(readResourceTool, fmt.Sprintf(`{"uri":%q}`, uri))
				assert.Contains(t, read.Text, "[resource "+uri)
				bad := h.reg.Execute(ctx, tools.Call{Name: "ev__" + readResourceTool, Arguments: []byte(`{"uri":"demo://nope"}`)})
				assert.True(t, bad.IsError)
			})
			t.Run("prompts", func(t *testing.T) {
				ps, err := h.c.Prompts(ctx)
				require.NoError(t, err)
				var names []string
				for _, p := range ps {
					names = append(names, p.Name)
				}
				assert.Contains(t, names, "args-prompt")
				msgs, err := h.c.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Lyon"})
				require.NoError(t, err)
				require.NotEmpty(t, msgs)
				assert.Contains(t, msgs[0].Content, "Lyon")
				_, err = h.c.GetPrompt(ctx, "args-prompt", nil)
				assert.ErrorContains(t, err, `needs argument "city"`)
			})
			t.Run("roots", func(t *testing.T) {
				res := run("get-roots-list", `{}`)
				assert.Contains(t, res.Text, h.c.Roots()[0])
			})
			t.Run("sampling", func(t *testing.T) {
				res := run("trigger-sampling-request", `{"prompt":"What is the capital of France?","maxTokens":50}`)
				assert.Contains(t, res.Text, "Paris is the capital of France.")
				h.mu.Lock()
				defer h.mu.Unlock()
				require.Len(t, h.asked, 2, "the person sees the request and the answer")
				assert.Contains(t, h.asked[0].Summary, "What is the capital of France?")
				assert.Contains(t, h.asked[1].Summary, "Paris")
				reqs := h.model.Requests()
				require.Len(t, reqs, 1)
				assert.Contains(t, reqs[0].Messages[len(reqs[0].Messages)-1].Content, "capital of France")
			})
			t.Run("elicitation", func(t *testing.T) {
				res := run("trigger-elicitation-request", `{}`)
				assert.Contains(t, res.Text, "Ada")
				run("trigger-url-elicitation", `{"url":"https://example.com/login"}`)
				h.mu.Lock()
				defer h.mu.Unlock()
				require.Len(t, h.elicited, 2)
				assert.Equal(t, "form", h.elicited[0].Mode)
				assert.Equal(t, "url", h.elicited[1].Mode)
				assert.Equal(t, "https://example.com/login", h.elicited[1].URL)
			})
			t.Run("content", func(t *testing.T) {
				img := run("get-tiny-image", `{}`)
				require.Len(t, img.Images, 1)
				assert.Equal(t, "image/png", img.Images[0].MIMEType)
				st := run("get-structured-content", `{"location":"New York"}`)
				assert.Contains(t, st.Text, "temperature")
				tool, _, err := h.reg.Lookup("ev__get-structured-content")
				require.NoError(t, err)
				assert.NotNil(t, tool.(*Tool).OutputSchema())
				ref := run("get-resource-reference", `{"resourceType":"Text","resourceId":2}`)
				assert.Contains(t, ref.Text, "[resource demo://resource/dynamic/text/2]\nResource 2: This is a plaintext resource")
				// A resource the server makes during the session, returned
				// as a link, is readable through the resource tool.
				gz := run("gzip-file-as-resource", `{"name":"hello.gz","data":"data:text/plain;base64,aGVsbG8=","outputType":"resourceLink"}`)
				require.Contains(t, gz.Text, "[resource link: demo://resource/session/hello.gz")
				blob := run(readResourceTool, `{"uri":"demo://resource/session/hello.gz"}`)
				assert.Contains(t, blob.Text, "application/gzip")
				assert.Contains(t, blob.Text, "of binary data, not passed to the model")
			})
			t.Run("tasks", func(t *testing.T) {
				assert.NotContains(t, h.reg.Names(), "ev__simulate-research-query")
				var found bool
				for _, err := range h.c.Skipped() {
					found = found || errors.Is(err, ErrNeedsTasks) && strings.Contains(err.Error(), "simulate-research-query")
				}
				assert.True(t, found, "skipped: %v", h.c.Skipped())
			})
			t.Run("logging", func(t *testing.T) {
				run("toggle-simulated-logging", `{}`)
				defer run("toggle-simulated-logging", `{}`)
				// The server sends one message at once, at a random level.
				assert.Eventually(t, func() bool { return h.logs.has("-level message") || h.logs.has(" level-message") },
					10*time.Second, 50*time.Millisecond)
			})
			t.Run("subscriptions", func(t *testing.T) {
				uri := "demo://resource/static/document/architecture.md"
				require.NoError(t, h.c.Subscribe(ctx, uri))
				run("toggle-subscriber-updates", `{}`)
				defer run("toggle-subscriber-updates", `{}`)
				select {
				case u := <-h.updates:
					assert.Equal(t, ResourceUpdate{Server: "ev", URI: uri}, u)
				case <-time.After(15 * time.Second):
					t.Fatal("no resource update")
				}
				require.NoError(t, h.c.Unsubscribe(ctx, uri))
			})
		})
	}
}

// TestEverythingEnvironment: a host secret never reaches a stdio server,
// and a server given the whole environment loses its read-only pass.
func TestEverythingEnvironment(t *testing.T) {
	bin := needServer(t, everythingBin)
	t.Setenv("OPENAI_API_KEY", "sk-probe-secret")
	ctx := context.Background()
	for _, inherit := range []bool{false, true} {
		c, err := Connect(ctx, ServerConfig{Name: "ev", Command: bin, Args: []string{"stdio"}, InheritEnv: inherit,
			Env: []string{"CONFIGURED=yes"}, TerminateGrace: 3 * time.Second})
		require.NoError(t, err)
		var reg tools.Registry
		_, err = c.Register(ctx, &reg)
		require.NoError(t, err)
		dec, reasons, ok := DecisionOf(&reg, "ev__get-env")
		require.True(t, ok)
		if inherit {
			assert.Equal(t, safety.Confirm, dec, reasons)
			assert.Contains(t, reasons[0], "InheritEnv")
			res := reg.Execute(WithApproved(ctx), tools.Call{Name: "ev__get-env", Arguments: []byte(`{}`)})
			assert.Contains(t, res.Text, "sk-probe-secret", "inheriting is explicit and does pass everything")
		} else {
			assert.Equal(t, safety.Allow, dec, reasons)
			res := reg.Execute(ctx, tools.Call{Name: "ev__get-env", Arguments: []byte(`{}`)})
			require.False(t, res.IsError, res.Text)
			assert.NotContains(t, res.Text, "sk-probe-secret")
			assert.NotContains(t, res.Text, "OPENAI_API_KEY")
			assert.Contains(t, res.Text, "CONFIGURED")
			assert.Contains(t, res.Text, "PATH")
		}
		require.NoError(t, c.Close())
	}
}

// TestEverythingLegacySSE: a URL that speaks only HTTP+SSE is reached by
// falling back after streamable HTTP fails.
func TestEverythingLegacySSE(t *testing.T) {
	base := startHTTPEverything(t, "sse")
	ctx := context.Background()
	c, err := Connect(ctx, ServerConfig{Name: "old", URL: base + "/sse", Rules: Rules{Allow: []string{"*"}}})
	require.NoError(t, err)
	defer c.Close()
	var reg tools.Registry
	_, err = c.Register(ctx, &reg)
	require.NoError(t, err)
	res := reg.Execute(ctx, tools.Call{Name: "old__echo", Arguments: []byte(`{"message":"over sse"}`)})
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "over sse")

	_, err = Connect(ctx, ServerConfig{Name: "nowhere", URL: base + "/nothing-here"})
	require.ErrorIs(t, err, ErrTransport)
	assert.Contains(t, err.Error(), "streamable HTTP")
	assert.Contains(t, err.Error(), "legacy HTTP+SSE")
	assert.NotContains(t, err.Error(), "mcp: mcp:")
}

// TestFilesystemRootsOnly: server-filesystem started without a directory
// allows exactly the client's roots, and follows them when they change.
func TestFilesystemRootsOnly(t *testing.T) {
	bin := needServer(t, filesystemBin)
	a, b := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(a, "a.txt"), []byte("in root a"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(b, "b.txt"), []byte("in root b"), 0o644))
	ctx := context.Background()
	c, err := Connect(ctx, ServerConfig{Name: "fs", Command: bin, Roots: []string{a}, Rules: Rules{Allow: []string{"*"}},
		TerminateGrace: 3 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	var reg tools.Registry
	_, err = c.Register(ctx, &reg)
	require.NoError(t, err)
	read := func(p string) tools.Result {
		return reg.Execute(ctx, tools.Call{Name: "fs__read_text_file", Arguments: []byte(fmt.Sprintf(`{"path":%q}`, p))})
	}
	require.Eventually(t, func() bool { return strings.Contains(read(filepath.Join(a, "a.txt")).Text, "in root a") },
		10*time.Second, 50*time.Millisecond)
	assert.True(t, read(filepath.Join(b, "b.txt")).IsError, "outside the roots")
	require.NoError(t, c.SetRoots(b))
	require.Eventually(t, func() bool { return strings.Contains(read(filepath.Join(b, "b.txt")).Text, "in root b") },
		10*time.Second, 50*time.Millisecond)
	assert.True(t, read(filepath.Join(a, "a.txt")).IsError, "the old root was withdrawn")
}
