// Command web serves Tether's editor panel as a local web app: a chat that
// streams the answer and collapses the model's thinking, tool actions
// grouped with their progress and output, approval cards showing the exact
// command or diff, and a changes view where each checkpoint can be kept or
// undone, per file and per hunk.
//
//	go run ./examples/tether-web -workspace DIR -model ollama:qwen3:8b
//	go run ./examples/tether-web -workspace DIR -model script:session.jsonl   # offline, scripted model
//
// It prints one URL, with a random token in it, and serves only that
// browser session:
//
//	open http://127.0.0.1:PORT/?token=…
//
// The page is static HTML, CSS and JavaScript modules embedded in the
// binary (no build step, nothing fetched from the network). Events stream
// to the page as Server-Sent Events; prompts, approval answers, stop,
// keep/undo and per-hunk decisions are JSON POSTs.
//
// A local web server is reachable by every web page the user visits, so:
// it listens on 127.0.0.1 unless -addr says otherwise; every request must
// carry the token (the first visit trades it for a SameSite=Strict,
// HttpOnly cookie and drops it from the address bar); the Host header
// must name this server (a DNS-rebinding page sends its own name); a POST
// must come from this origin with Content-Type application/json, which a
// cross-site form cannot send; GETs never change anything; and a strict
// Content-Security-Policy lets the page run only its own scripts, so model
// output that contains markup stays text.
//
// Confirm-level actions (a command no rule allows, a write to a sensitive
// file) wait for an answer on the page; one left unanswered for
// -approval-timeout is denied. Sessions persist in -db when given, so they
// and their checkpoints can be resumed after a restart: a SQLite file, or
// a postgres:// URL that several web processes share (each lists and
// resumes the others' sessions; a turn runs in one process at a time, and
// its events and approval cards reach the pages of every process, any of
// which may answer them).
//
// Exit status: 2 for bad flags, 1 when the server cannot start.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tetherdev/tether/examples/internal/flagparse"
	"github.com/tetherdev/tether/examples/internal/folders"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/settings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command-line flags.
type options struct {
	addr            string
	workspace       string
	model           string
	numCtx          int
	db              string
	approvalTimeout time.Duration
	logLevel        slog.Level
	mcpConfig       string
	folders         folders.Flag
	wireLog         string            // -wire-log
	bodyTimeout     time.Duration     // 0: defaultBodyTimeout
	set             settings.Settings // the settings files with the flags applied
	untrusted       string            // what the settings left out, to log at start
}

// defaultBodyTimeout bounds reading one request body. The page's bodies
// are small JSON; a minute is far beyond what a loopback client needs.
const defaultBodyTimeout = time.Minute

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("tether-web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `web serves Tether's agent panel on localhost.

usage: go run ./examples/tether-web -workspace DIR -model MODEL [flags]

Open the URL it prints (it holds the access token; the server listens on
loopback only unless -addr says otherwise). The page streams the answer and
the tool actions, asks on approval cards (a command no rule allows, a write
to a sensitive file; unanswered ones are denied after -approval-timeout),
and shows each checkpoint's changes to keep or undo, per file and per hunk.
Files can go with a prompt (picked, dropped or pasted): a text file as
context under its name (up to 256 KiB), an image (PNG, JPEG, GIF, WebP, up
to 5 MiB) to a model that takes images; at most 20 files, 20 MiB in all.

MODEL is ollama:NAME (OLLAMA_HOST), openai:NAME (OPENAI_BASE_URL,
OPENAI_API_KEY) or script:FILE, a scripted model for offline runs: JSON
lines, one model response per line, e.g.
  {"content":"Reading it.","tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}

Sessions and checkpoints stay in memory unless -db names a SQLite file or a
PostgreSQL URL; on PostgreSQL several web processes share sessions and
approval cards.

%s
Exit status: 0 after Ctrl-C, 1 when the server cannot start, 2 for bad flags.

Examples:
  go run ./examples/tether-web -workspace . -model ollama:qwen3:8b -allow 'go test'
  go run ./examples/tether-web -workspace "$(mktemp -d)" -model script:examples/tether-web/testdata/browser.jsonl

flags:
`, hostcfg.SettingsHelp)
		fs.PrintDefaults()
	}
	var o options
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "address to listen on; port 0 picks a free one. Anything but a loopback address exposes the agent to the network")
	shared := hostcfg.Register(fs, hostcfg.Common...)
	fs.Var(&o.folders, "folder", folders.Usage)
	fs.StringVar(&o.db, "db", "", "where sessions and checkpoints persist, so both survive a restart: a SQLite file, or a PostgreSQL URL\n(postgres://user:pass@host/db) that several web processes share, each showing and answering the others' turns and approval cards (default: in memory)")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "stderr log level: debug, info, warn, error")
	fs.StringVar(&o.mcpConfig, "mcp-config", "", mcpmount.Usage)
	if err := flagparse.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: everything is set with flags (see -h)", fs.Arg(0))
	}
	l, err := shared.Load(settings.Env{})
	if err != nil {
		return o, err
	}
	o.set, o.untrusted, o.wireLog = l.Settings, hostcfg.Untrusted(l, "web"), shared.WireLog
	o.workspace, o.model, o.approvalTimeout = shared.Workspace, o.set.Model, hostcfg.ApprovalTimeout(o.set)
	if o.model == "" {
		return o, fmt.Errorf("-model is required (or \"model\" in %s): ollama:NAME, openai:NAME or script:FILE", settings.ProjectFile)
	}
	if host, _, err := net.SplitHostPort(o.addr); err != nil {
		return o, fmt.Errorf("-addr %q: %v; want HOST:PORT such as 127.0.0.1:8080", o.addr, err)
	} else if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		// The Host check needs the one name the page is opened by.
		return o, fmt.Errorf("-addr %q listens on every interface; name one address, e.g. 127.0.0.1:8080 or this machine's LAN address", o.addr)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "web:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: o.logLevel}))
	if o.untrusted != "" {
		logger.Warn(o.untrusted)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		fmt.Fprintln(stderr, "web:", err)
		return 1
	}
	srv, err := newServer(ctx, o, ln.Addr().String(), logger)
	if err != nil {
		ln.Close()
		fmt.Fprintln(stderr, "web:", err)
		return 1
	}
	defer srv.close()
	fmt.Fprintf(stdout, "Tether is serving %s\nopen %s\n", srv.workspace(), srv.startURL())
	if err := serve(ctx, ln, srv); err != nil {
		fmt.Fprintln(stderr, "web:", err)
		return 1
	}
	return 0
}

// serve runs the HTTP server until ctx ends, then stops the agent's runs
// and closes the connections (event streams never end on their own).
func serve(ctx context.Context, ln net.Listener, srv *server) error {
	// No ReadTimeout: it would also end the event stream, which reads the
	// connection to notice the page leave. Bodies are bounded by the guard.
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	srv.stopRuns()
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		hs.Close()
	}
	return nil
}
