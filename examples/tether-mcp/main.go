// Command mcp serves Tether's tools over the Model Context Protocol and
// calls the tools of any MCP server.
//
// Serve the built-in tools (files, search, terminal, diagnostics) and the
// code-intelligence tools on a workspace, over stdio or streamable HTTP:
//
//	go run ./examples/tether-mcp serve -workspace DIR [-http 127.0.0.1:8080] [-allow 'go test,ls']
//
// With -http, clients reach it at any path by streamable HTTP, and older
// clients that speak the legacy HTTP+SSE transport at /sse.
//
// Every call passes Tether's safety policy first. Nobody is there to
// confirm, so confirm-level actions (commands no -allow rule covers,
// writes to sensitive files, reading secrets) are refused with the
// reasons, as in a headless gateway.
//
// List or call the tools of a server, started as a command after "--",
// reached at -url (streamable HTTP, or legacy HTTP+SSE), or named in a
// config file in the format Claude Desktop, Cursor and VS Code share:
//
//	go run ./examples/tether-mcp list -- go run ./examples/tether-mcp serve -workspace .
//	go run ./examples/tether-mcp call -tool read_file -args '{"path":"go.mod"}' -- go run ./examples/tether-mcp serve -workspace .
//	go run ./examples/tether-mcp call -url http://localhost:8080 -tool search_workspace -args '{"query":"TODO"}'
//	go run ./examples/tether-mcp list -mcp-config ~/.cursor/mcp.json -server github
//	go run ./examples/tether-mcp resources -uri demo://resource/static/document/architecture.md -- mcp-server-everything
//	go run ./examples/tether-mcp prompts -name args-prompt -arg city=Lyon -- mcp-server-everything
//
// list prints each tool with the decision Tether makes for it (allow or
// confirm, from its annotations and -allow-tool rules). call runs one
// tool; a confirm-level tool runs only with -yes. The result text goes to
// standard output; a tool error exits with status 1. resources lists a
// server's resources or reads one; prompts lists its prompts (as slash
// commands) or fills one. Audio and binary resources in a result are
// described in a line, as the model sees them; -save-media DIR writes
// their bytes to DIR.
//
// A command server gets only HOME, LOGNAME, PATH, SHELL, TERM and USER from
// this environment, plus -env and the config file's env (-inherit-env
// passes everything). The current directory is offered as its root (-root
// adds others), and it gets -grace to exit once its input closes. "mcp -h"
// lists every flag.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/mcp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
	"github.com/tetherdev/tether/tools/lsptools"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  tether-mcp serve -workspace DIR [-http ADDR [-public]] [-allow RULES] [-no-terminal] [-read-roots DIRS] [-v]
  tether-mcp list      [client flags] [-- COMMAND ARGS...]   tools, with Tether's decision for each
  tether-mcp call      -tool NAME [-args JSON] [-yes] [client flags] [-- COMMAND ARGS...]
  tether-mcp resources [-uri URI] [client flags] [-- COMMAND ARGS...]   list resources, or read one
  tether-mcp prompts   [-name NAME [-arg KEY=VALUE]...] [client flags] [-- COMMAND ARGS...]   list prompts, or fill one

The server is a command after "--", -url URL, or -mcp-config FILE [-server NAME].
Run "tether-mcp -h" for every flag.
`

// names of the subcommands, in the order help shows them.
var subcommandNames = []string{"serve", "list", "call", "resources", "prompts"}

// options hold the flags of every subcommand; newFlagSet defines those of
// one, so that help can print them all.
type options struct {
	// serve
	dir, addr, allow, readRoots string
	noTerm, verbose, public     bool
	// list, call, resources, prompts
	client clientFlags
	// call
	tool, argJSON string
	yes           bool
	// resources
	uri string
	// prompts
	name      string
	arguments multiFlag
}

func newFlagSet(name string, out io.Writer) (*flag.FlagSet, *options) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	o := &options{}
	switch name {
	case "serve":
		fs.StringVar(&o.dir, "workspace", "", "workspace directory to serve (required)")
		fs.StringVar(&o.addr, "http", "", "serve streamable HTTP on this address instead of stdio (legacy HTTP+SSE at /sse)")
		fs.StringVar(&o.allow, "allow", "", "comma-separated command rules that run without confirmation, e.g. 'go test,npm run test'")
		fs.BoolVar(&o.noTerm, "no-terminal", false, "leave run_terminal_command out")
		fs.BoolVar(&o.verbose, "v", false, "log every safety decision to standard error")
		fs.StringVar(&o.readRoots, "read-roots", "", "comma-separated directories outside the workspace whose code the code-intelligence tools may quote (e.g. $(go env GOROOT)/src)")
		fs.BoolVar(&o.public, "public", false, "allow -http on an address other than loopback (anyone who can reach it can use the tools)")
		return fs, o
	case "call":
		fs.StringVar(&o.tool, "tool", "", "the tool to call, as the server names it (required)")
		fs.StringVar(&o.argJSON, "args", "{}", "the tool's arguments as a JSON object")
		fs.BoolVar(&o.yes, "yes", false, "confirm a tool that needs confirmation")
	case "resources":
		fs.StringVar(&o.uri, "uri", "", "read this resource instead of listing them")
	case "prompts":
		fs.StringVar(&o.name, "name", "", "fill this prompt and print its messages instead of listing prompts")
		fs.Var(&o.arguments, "arg", "KEY=VALUE argument of the prompt (repeatable)")
	}
	o.client.register(fs)
	return fs, o
}

// helpDetails follows the usage in -h: what each side does, exit status
// and examples.
const helpDetails = `
serve offers Tether's tools (files, search, terminal, diagnostics, code
intelligence) on a workspace over stdio, or streamable HTTP with -http. Every
call is judged by Tether's safety policy; nobody is there to confirm, so
confirm-level actions (commands no -allow rule covers, writes to sensitive
files, reading secrets) are refused with the reasons.

The client subcommands start a command server with only HOME, LOGNAME, PATH,
SHELL, TERM and USER from this environment (plus -env and the config file's
env; -inherit-env passes everything) and offer it the current directory as
its root. call runs a confirm-level tool only with -yes.

Exit status: 0 on success; 1 when a tool reports an error or the server
cannot be reached; 2 for bad usage.

Examples:
  tether-mcp serve -workspace . -allow 'go test,ls'
  tether-mcp list -- mcp serve -workspace .
  tether-mcp call -tool read_file -args '{"path":"go.mod"}' -- mcp serve -workspace .
  tether-mcp call -url http://localhost:8080 -tool search_workspace -args '{"query":"TODO"}'
  tether-mcp list -mcp-config ~/.cursor/mcp.json -server github
  tether-mcp prompts -name args-prompt -arg city=Lyon -- mcp-server-everything
`

// help prints the usage, what each side does, examples and every
// subcommand's flags.
func help(w io.Writer) {
	fmt.Fprint(w, usage)
	fmt.Fprint(w, helpDetails)
	for _, name := range subcommandNames {
		fmt.Fprintf(w, "\nflags of %s:\n", name)
		fs, _ := newFlagSet(name, w)
		fs.PrintDefaults()
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "-h", "-help", "--help", "help":
		help(stdout)
		return 0
	case "serve":
		err = serve(ctx, args[1:], stderr)
	case "list":
		err = list(ctx, args[1:], stdout, stderr)
	case "call":
		err = call(ctx, args[1:], stdout, stderr)
	case "resources":
		err = resources(ctx, args[1:], stdout, stderr)
	case "prompts":
		err = prompts(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "unknown subcommand %q\n%s", args[0], usage)
		return 2
	}
	var toolErr toolFailed
	switch {
	case err == nil:
		return 0
	case errors.As(err, &toolErr):
		return 1
	case errors.Is(err, flag.ErrHelp):
		return 0 // the subcommand's flags were asked for and printed
	case errors.Is(err, errUsage):
		return 2
	}
	// Errors from package mcp already name it; say "mcp:" once.
	msg := err.Error()
	if !strings.HasPrefix(msg, "mcp: ") {
		msg = "mcp: " + msg
	}
	fmt.Fprintln(stderr, msg)
	return 1
}

var errUsage = errors.New("usage")

type toolFailed struct{}

func (toolFailed) Error() string { return "tool failed" }

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs, o := newFlagSet("serve", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.dir == "" {
		fmt.Fprintln(stderr, "serve: -workspace is required")
		return errUsage
	}
	if o.addr != "" && !o.public && !loopback(o.addr) {
		return fmt.Errorf("-http %s is reachable from other machines and the server has no authentication; use 127.0.0.1:PORT, or -public if you mean it", o.addr)
	}
	ws, err := safety.OpenWorkspace(o.dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	var logger *slog.Logger
	if o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	var reg tools.Registry
	sh, err := builtin.Register(&reg, ws, builtin.Options{NoTerminal: o.noTerm})
	if err != nil {
		return err
	}
	servers := &lsp.Manager{Root: ws.Root(), Logger: logger}
	defer servers.Close(context.WithoutCancel(ctx))
	lcfg := lsptools.Config{Files: ws, Servers: servers}
	if o.readRoots != "" {
		lcfg.ReadRoots = strings.Split(o.readRoots, ",")
	}
	if err := lsptools.Register(&reg, lcfg); err != nil {
		return err
	}
	rules := safety.CommandRules{AllowReadOnly: true, Logger: logger}
	if o.allow != "" {
		rules.Allow = []string{o.allow}
	}
	opts := mcp.ServeOptions{
		Name:         "tether",
		Instructions: "Tether's workspace tools for " + ws.Root() + ". Paths are relative to the workspace root.\n\n" + lsptools.NavigationGuidance,
		Policy:       &safety.Policy{Workspace: ws, Rules: rules, Headless: true, Logger: logger},
		Logger:       logger,
	}
	if sh != nil {
		opts.Cwd = sh.Cwd
	}
	srv, err := mcp.NewServer(&reg, opts)
	if err != nil {
		return err
	}
	if o.addr == "" {
		err := mcp.ServeStdio(ctx, srv)
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	hs := &http.Server{Addr: o.addr, Handler: mcp.Handler(srv), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	fmt.Fprintf(stderr, "serving %s over MCP at http://%s\n", ws.Root(), o.addr)
	if err := hs.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func list(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, _, err := connectFor(ctx, "list", args, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	ts, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	width := 0
	for _, t := range ts {
		width = max(width, len(t.RemoteName()))
	}
	for _, t := range ts {
		dec, reasons := t.Decision()
		fmt.Fprintf(stdout, "%-*s %-8s %s\n", width, t.RemoteName(), dec, summary(t.Describe().Description))
		if dec != safety.Allow {
			fmt.Fprintf(stdout, "%-*s          (%s)\n", width, "", strings.Join(reasons, "; "))
		}
	}
	for _, err := range c.Skipped() {
		fmt.Fprintf(stderr, "skipped: %v\n", err)
	}
	return nil
}

// summary is the first sentence of a tool's description, on one line:
// servers write descriptions of a page or more for models, and list shows
// one line per tool.
func summary(desc string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(desc), "\n")
	first, _, _ = strings.Cut(first, ". ")
	return strings.TrimSuffix(strings.TrimSpace(first), ".")
}

func call(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, o := newFlagSet("call", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.tool == "" {
		fmt.Fprintln(stderr, "call: -tool is required")
		return errUsage
	}
	if !json.Valid([]byte(o.argJSON)) {
		return fmt.Errorf("-args is not valid JSON: %s", o.argJSON)
	}
	var confirm mcp.Confirmer
	if o.yes {
		confirm = mcp.ConfirmFunc(func(context.Context, mcp.ConfirmRequest) error { return nil })
	}
	c, err := o.client.connect(ctx, fs, stderr, confirm)
	if err != nil {
		return err
	}
	defer c.Close()
	var reg tools.Registry
	if _, err := c.Register(ctx, &reg); err != nil {
		return err
	}
	res := reg.Execute(ctx, tools.Call{Name: c.Name() + tools.NamespaceSep + o.tool, Arguments: json.RawMessage(o.argJSON)})
	if res.IsError {
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		fmt.Fprintln(stderr, res.Text)
		if !o.yes && strings.Contains(res.Text, "no approver") {
			fmt.Fprintln(stderr, "(run again with -yes to confirm it)")
		}
		return toolFailed{}
	}
	fmt.Fprintln(stdout, res.Text)
	return o.client.media.failed()
}

// loopback reports whether addr (host:port) listens on loopback only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
