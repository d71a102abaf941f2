// Command mcp serves Tether's tools over the Model Context Protocol and
// calls the tools of any MCP server.
//
// Serve the built-in tools (files, search, terminal, diagnostics) and the
// code-intelligence tools on a workspace, over stdio or streamable HTTP:
//
//	go run ./examples/mcp serve -workspace DIR [-http 127.0.0.1:8080] [-allow 'go test,ls']
//
// Every call passes Tether's safety policy first. Nobody is there to
// confirm, so confirm-level actions (commands no -allow rule covers,
// writes to sensitive files, reading secrets) are refused with the
// reasons, as in a headless gateway.
//
// List or call the tools of a server, started as a command after "--" or
// reached at -url:
//
//	go run ./examples/mcp list -- go run ./examples/mcp serve -workspace .
//	go run ./examples/mcp call -tool read_file -args '{"path":"go.mod"}' -- go run ./examples/mcp serve -workspace .
//	go run ./examples/mcp call -url http://localhost:8080 -tool search_workspace -args '{"query":"TODO"}'
//
// list prints each tool with the decision Tether makes for it (allow or
// confirm, from its annotations and -allow-tool rules). call runs one
// tool; a confirm-level tool runs only with -yes. The result text goes to
// standard output; a tool error exits with status 1.
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
  mcp serve -workspace DIR [-http ADDR [-public]] [-allow RULES] [-no-terminal]
  mcp list [-url URL] [-allow-tool PATTERNS] [-- COMMAND ARGS...]
  mcp call -tool NAME [-args JSON] [-yes] [-url URL] [-allow-tool PATTERNS] [-- COMMAND ARGS...]
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stderr)
	case "list":
		err = list(ctx, args[1:], stdout, stderr)
	case "call":
		err = call(ctx, args[1:], stdout, stderr)
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
	case errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintln(stderr, "mcp:", err)
	return 1
}

var errUsage = errors.New("usage")

type toolFailed struct{}

func (toolFailed) Error() string { return "tool failed" }

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", "", "workspace directory to serve (required)")
	addr := fs.String("http", "", "serve streamable HTTP on this address instead of stdio")
	allow := fs.String("allow", "", "comma-separated command rules that run without confirmation, e.g. 'go test,npm run test'")
	noTerm := fs.Bool("no-terminal", false, "leave run_terminal_command out")
	verbose := fs.Bool("v", false, "log every safety decision to standard error")
	readRoots := fs.String("read-roots", "", "comma-separated directories outside the workspace whose code the code-intelligence tools may quote (e.g. $(go env GOROOT)/src)")
	public := fs.Bool("public", false, "allow -http on an address other than loopback (anyone who can reach it can use the tools)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "serve: -workspace is required")
		return errUsage
	}
	if *addr != "" && !*public && !loopback(*addr) {
		return fmt.Errorf("-http %s is reachable from other machines and the server has no authentication; use 127.0.0.1:PORT, or -public if you mean it", *addr)
	}
	ws, err := safety.OpenWorkspace(*dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	var logger *slog.Logger
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	var reg tools.Registry
	sh, err := builtin.Register(&reg, ws, builtin.Options{NoTerminal: *noTerm})
	if err != nil {
		return err
	}
	servers := &lsp.Manager{Root: ws.Root(), Logger: logger}
	defer servers.Close(context.WithoutCancel(ctx))
	lcfg := lsptools.Config{Files: ws, Servers: servers}
	if *readRoots != "" {
		lcfg.ReadRoots = strings.Split(*readRoots, ",")
	}
	if err := lsptools.Register(&reg, lcfg); err != nil {
		return err
	}
	rules := safety.CommandRules{AllowReadOnly: true, Logger: logger}
	if *allow != "" {
		rules.Allow = []string{*allow}
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
	if *addr == "" {
		err := mcp.ServeStdio(ctx, srv)
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	hs := &http.Server{Addr: *addr, Handler: mcp.Handler(srv), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	fmt.Fprintf(stderr, "serving %s over MCP at http://%s\n", ws.Root(), *addr)
	if err := hs.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// clientFlags are the flags list and call share.
type clientFlags struct {
	url       string
	allowTool string
	command   []string
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", "", "streamable HTTP endpoint of the server")
	fs.StringVar(&c.allowTool, "allow-tool", "", "comma-separated tool name patterns that run without confirmation")
}

func (c *clientFlags) connect(ctx context.Context, fs *flag.FlagSet, confirm mcp.Confirmer) (*mcp.Client, error) {
	c.command = fs.Args()
	cfg := mcp.ServerConfig{Name: "server", URL: c.url, Confirm: confirm}
	if c.allowTool != "" {
		cfg.Rules.Allow = strings.Split(c.allowTool, ",")
	}
	switch {
	case c.url != "" && len(c.command) > 0:
		return nil, errors.New("give either -url or a command after --, not both")
	case c.url == "" && len(c.command) == 0:
		return nil, errors.New("give the server: -url URL, or a command after --")
	case len(c.command) > 0:
		cfg.Command, cfg.Args = c.command[0], c.command[1:]
	}
	return mcp.Connect(ctx, cfg)
}

func list(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := cf.connect(ctx, fs, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	ts, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	for _, t := range ts {
		dec, reasons := t.Decision()
		desc, _, _ := strings.Cut(t.Describe().Description, ". ")
		fmt.Fprintf(stdout, "%-22s %-8s %s\n", t.RemoteName(), dec, desc)
		if dec != safety.Allow {
			fmt.Fprintf(stdout, "%-22s          (%s)\n", "", strings.Join(reasons, "; "))
		}
	}
	for _, err := range c.Skipped() {
		fmt.Fprintf(stderr, "skipped: %v\n", err)
	}
	return nil
}

func call(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	tool := fs.String("tool", "", "the tool to call, as the server names it (required)")
	argJSON := fs.String("args", "{}", "the tool's arguments as a JSON object")
	yes := fs.Bool("yes", false, "confirm a tool that needs confirmation")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tool == "" {
		fmt.Fprintln(stderr, "call: -tool is required")
		return errUsage
	}
	if !json.Valid([]byte(*argJSON)) {
		return fmt.Errorf("-args is not valid JSON: %s", *argJSON)
	}
	var confirm mcp.Confirmer
	if *yes {
		confirm = mcp.ConfirmFunc(func(context.Context, mcp.ConfirmRequest) error { return nil })
	}
	c, err := cf.connect(ctx, fs, confirm)
	if err != nil {
		return err
	}
	defer c.Close()
	var reg tools.Registry
	if _, err := c.Register(ctx, &reg); err != nil {
		return err
	}
	res := reg.Execute(ctx, tools.Call{Name: "server" + tools.NamespaceSep + *tool, Arguments: json.RawMessage(*argJSON)})
	if res.IsError {
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		fmt.Fprintln(stderr, res.Text)
		if !*yes && strings.Contains(res.Text, "no approver") {
			fmt.Fprintln(stderr, "(run again with -yes to confirm it)")
		}
		return toolFailed{}
	}
	fmt.Fprintln(stdout, res.Text)
	return nil
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
