package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/internal/lazyregexp"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// ErrConfig: a ServerConfig that cannot work (no way to reach the server, a
// bad name or pattern). The message says which field to fix.
var ErrConfig = errors.New("mcp: invalid server config")

// DefaultTerminateGrace is how long Close waits, after closing a stdio
// server's stdin, before it terminates the process. Well-behaved servers
// exit at once; a lingering one must not hold up every short CLI run.
const DefaultTerminateGrace = time.Second

// ServerConfig says how to reach one MCP server and how far to trust it.
// Set exactly one of Command, URL or Transport.
type ServerConfig struct {
	// Name identifies the server and becomes its tools' namespace
	// ("github" → "github__create_issue"): 1-40 of [a-zA-Z0-9_-], no "__".
	Name string

	// Command and Args start a server that speaks MCP on stdin/stdout;
	// Dir is its working directory. The server's stderr is kept (last
	// 8 KiB) for error messages.
	//
	// The server does not get this process's environment: only HOME,
	// LOGNAME, PATH, SHELL, TERM and USER are passed, then Env ("KEY=value"
	// entries, which win). InheritEnv passes the whole environment instead,
	// API keys included; a server started that way can read the host's
	// secrets, so its read-only annotations no longer let calls run
	// unasked (see Rules).
	Command    string
	Args       []string
	Env        []string
	InheritEnv bool
	Dir        string
	// TerminateGrace is how long Close waits for the process to exit
	// after closing its stdin before terminating it; zero means
	// DefaultTerminateGrace.
	TerminateGrace time.Duration

	// URL is a remote endpoint. It is tried as streamable HTTP first and,
	// when the server does not speak it, as the legacy HTTP+SSE transport;
	// LegacySSE skips the first attempt. Header is sent with every request
	// (an Authorization token, say). The session talks to URL's origin
	// only: a redirect to another origin, or a legacy SSE endpoint event
	// naming one, fails with ErrOtherOrigin. HTTPClient defaults to
	// http.DefaultClient. OAuth authorizes requests the server refuses
	// with 401 (see OAuthConfig).
	URL        string
	LegacySSE  bool
	Header     http.Header
	HTTPClient *http.Client
	OAuth      *OAuthConfig

	// Transport connects any other way (in-process, a custom pipe).
	Transport sdk.Transport

	// Rules decide which tools run without asking (see Rules).
	Rules Rules
	// Workspace, when set, is whose sensitivity rules judge the arguments
	// of a call that runs unasked on the strength of its read-only
	// annotation: relative paths resolve from its root, and its project
	// rules apply as well as the built-in secret floor. Without it, the
	// floor alone judges, and relative paths resolve from Dir.
	Workspace *safety.Workspace
	// Confirm is asked about confirm-level calls; nil denies them, as a
	// headless gateway must.
	Confirm Confirmer
	// MaxOutput bounds a result's text; zero means DefaultMaxOutput.
	MaxOutput int
	// CallTimeout bounds each tool call, resource read and prompt get;
	// zero means no limit beyond the caller's context.
	CallTimeout time.Duration

	// Roots are the directories the server may work in, offered as
	// file:// roots (the agent's workspace and any other folders it has
	// open); SetRoots replaces them later and the server is told. A server
	// that reads roots applies them some time after it asks; the session's
	// first tool call, if the server refuses it, waits for the server to
	// have asked and is sent again a few times (within about 4 s) before
	// its error is returned. Only that first call is ever resent.
	Roots []string

	// SamplingModel answers the server's sampling requests (the server
	// asks the host's model to write something). Nil: the client does not
	// offer sampling. Each request and its answer are shown to Approver
	// before anything goes back to the server.
	SamplingModel llm.Model
	// Approver is asked to allow sampling requests and their answers, and
	// URL-mode elicitations when Elicit is nil. Nil refuses them.
	Approver approval.Approver
	// Elicit answers the server's requests for input from the user (form
	// and URL modes). Nil: URL requests go to Approver, forms are
	// declined, as a headless host must.
	Elicit ElicitFunc

	// Logger receives connection events, every refused or confirmed
	// call and the server's own log messages (at mapped levels); nil logs
	// nothing.
	Logger *slog.Logger
	// OnToolsChanged is called after the server said its tools, resources
	// or prompts changed and the registry given to Register was
	// refreshed.
	OnToolsChanged func(*Client)
	// OnResourceUpdated is called when a resource the client subscribed
	// to (Client.Subscribe) changed on the server.
	OnResourceUpdated func(ResourceUpdate)
	// OnMedia receives the audio and binary resources of each tool
	// result and read resource, which the model gets only as a line of
	// description; it is called before the call returns, with the call's
	// context. Nil drops the bytes.
	OnMedia func(context.Context, Media)
}

var serverNameRE = lazyregexp.New(`^[a-zA-Z0-9_-]{1,40}$`)

func (c *ServerConfig) validate() error {
	if !serverNameRE.MatchString(c.Name) || strings.Contains(c.Name, tools.NamespaceSep) {
		return fmt.Errorf("%w: Name %q: use 1-40 letters, digits, '_' or '-', without \"__\"", ErrConfig, c.Name)
	}
	n := 0
	for _, set := range []bool{c.Command != "", c.URL != "", c.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%w: server %q: set exactly one of Command, URL or Transport", ErrConfig, c.Name)
	}
	for _, kv := range c.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("%w: server %q: Env entry %q: want KEY=value", ErrConfig, c.Name, kv)
		}
	}
	if c.OAuth != nil && c.URL == "" {
		return fmt.Errorf("%w: server %q: OAuth needs a URL server", ErrConfig, c.Name)
	}
	if c.OAuth != nil {
		if err := c.OAuth.validate(); err != nil {
			return fmt.Errorf("%w: server %q: OAuth: %v", ErrConfig, c.Name, err)
		}
	}
	if err := c.Rules.validate(); err != nil {
		return fmt.Errorf("%w: server %q: %v", ErrConfig, c.Name, err)
	}
	return nil
}
