// Package mcp connects Tether to the Model Context Protocol in both
// directions, with the official SDK (github.com/modelcontextprotocol/go-sdk).
//
// # Using an MCP server's tools
//
// Connect starts a server command (stdio) or dials a streamable HTTP
// endpoint, and Client.Register adds the server's tools to a
// tools.Registry under the server's name as namespace, with the server's
// JSON Schemas, so the registry validates a model's arguments before they
// are sent:
//
//	c, err := mcp.Connect(ctx, mcp.ServerConfig{
//		Name:    "github",
//		Command: "github-mcp-server", Args: []string{"stdio"},
//		Rules:   mcp.Rules{Allow: []string{"get_*", "list_*"}, Deny: []string{"delete_*"}},
//		Confirm: confirmer, // asks the user; nil refuses confirm-level calls
//	})
//	defer c.Close()
//	names, err := c.Register(ctx, &reg) // "github__create_issue", …
//
// Names become "<server>__<tool>", with characters models cannot send
// replaced and a short hash added when that would make two names collide
// or exceed 64 bytes. A model that drops the prefix still reaches a tool
// whose bare name is unique. When the server says its tools, resources or
// prompts changed, the registry is refreshed. Tools that can only run as
// MCP tasks are left out, with a note in Skipped.
//
// # Reaching servers
//
// A command server gets a minimal environment: HOME, LOGNAME, PATH, SHELL,
// TERM and USER, then ServerConfig.Env; InheritEnv passes everything,
// secrets included. Close closes its stdin and terminates it after
// TerminateGrace. A URL is tried as streamable HTTP, then as legacy
// HTTP+SSE; errors say what was tried. OAuthConfig runs the
// authorization-code flow with PKCE when the server answers 401, refreshes
// tokens and keeps them in a host TokenStore. LoadConfig reads the
// mcpServers / servers JSON files of Claude Desktop, Cursor and VS Code.
//
// # What the model and the host get
//
// Text results go to the model verbatim, images as Result.Images (with a
// line of text for models that do not see), structured content as JSON
// (once: not again when a text part already holds it, or holds the value
// of its only field), audio and binary resources as a line giving their
// type, size and, for WAV, duration, with the bytes handed to the host's
// ServerConfig.OnMedia; resource links naming the tool that reads them: a server with resources
// gets "<server>__mcp_list_resources" and "<server>__mcp_read_resource".
// Progress notifications reach the calling context's tools.Reporter with
// progress, total and message, every one before the call returns.
// Prompts (Client.Prompts, Client.GetPrompt) are for hosts to offer as
// slash commands; Subscribe reports resource changes to
// OnResourceUpdated; server log messages go to the Logger at the matching
// slog level.
//
// The client offers ServerConfig.Roots (the workspace, say; SetRoots
// updates them). Sampling requests go to SamplingModel, the request and
// the answer each shown to Approver first. Elicitation requests go to
// Elicit; without it a URL request is shown to Approver and a form is
// declined, as a headless host must.
//
// # Which calls need a human
//
// Every MCP tool carries a decision (safety.Allow, Confirm or Deny):
//
//   - a Rules.Deny pattern names it: Deny, never sent;
//   - a Rules.Allow pattern names it: Allow;
//   - the server annotates it readOnlyHint and openWorldHint false (and
//     Rules.IgnoreAnnotations is off, and the server was not given the
//     host's whole environment, from which a "read-only" tool could hand
//     back an API key): Allow; the tool is then also Spec.ReadOnly, so
//     read-only agent modes offer it and it may run in parallel. A call
//     whose arguments lead to a file that may hold secrets (.env, ~/.ssh/…,
//     credentials, or what ServerConfig.Workspace's own rules call
//     secret), through a link, a relative path or a directory given in
//     another argument, still needs confirmation;
//   - read-only but open-world (openWorldHint true, or absent, which the
//     spec reads as true): Allow only with Rules.AllowOpenWorld, the
//     host's trust in that server ("allowOpenWorld" in a config file);
//   - anything else, a tool claiming to be both read-only and destructive
//     included: Confirm.
//
// Patterns are path.Match globs over the tool's own name, or over
// "<server>/<tool>" when they contain a slash. Annotations are the
// server's claims: they classify a tool and never grant more than the host
// configured; use IgnoreAnnotations for servers you do not trust.
//
// The decision is exposed and enforced. Exposed: the registry hands back
// the *Tool itself, which implements Decider (DecisionOf does the lookup
// and the type assertion in one call), so an agent's tool runner reads it and routes confirm-level calls through its own approval flow
// (the same one shell commands use), then runs the call with a context
// marked by WithApproved. Enforced: a Tool asked to run a confirm-level
// call without that mark asks ServerConfig.Confirm, and refuses (with
// ErrDenied and ErrNoApprover) when there is none, so a runner that
// ignores Decider can never run an unapproved MCP call. Refusals and
// confirmations are logged to ServerConfig.Logger with their reasons.
//
// # Serving Tether's tools
//
// NewServer exposes a Registry over MCP: the built-in file, search,
// terminal and code-intelligence tools on a workspace, for example, so
// that another agent gets Tether's confined tools and safety checks.
// ServeStdio serves on stdin/stdout; Handler returns an http.Handler for
// streamable HTTP, and for the legacy HTTP+SSE transport at paths ending
// in "/sse". Over stdio, on either side, a line that is not JSON-RPC (a
// server's banner, a client's malformed request) is reported (the server
// answers it with a JSON-RPC error) and the session goes on, as with the
// official TypeScript and Python SDKs.
//
// Each call is judged by ServeOptions.Policy before it runs. ActionOf
// describes a built-in tool's call as the command or the paths it touches;
// the check runs after the registry has normalised the arguments, so the
// path that was checked is the path the tool uses. Allow runs; Deny is
// refused; Confirm goes to ServeOptions.Confirm, or is refused when it is
// nil (the client is another program, not a person). A Policy with
// Headless set turns every Confirm into Deny. Tools ActionOf does not know
// run when read-only and need confirmation otherwise. Refusals reach the
// client as tool errors (isError) with the reasons. Each tool has a
// title, the spec's hints (read-only tools are idempotent; workspace file
// tools are closed-world) and an output schema: results carry Tether's
// tools.Meta as structured content, and in _meta["tether/meta"], which a
// Tether client turns back into Result.Meta.
//
// # Progress
//
// Progress travels both ways: a served tool's tools.Report calls (read_file
// chunks, a command's output as it runs) become MCP progress notifications
// when the client asked for them, and a Tether client hands any remote
// tool's notifications to the calling context's tools.Reporter.
package mcp
