package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/internal/tailbuf"
)

// Client is a running language server for one workspace root. It is safe
// for concurrent use. Close it to shut the server down.
type Client struct {
	spec   ServerSpec
	root   string
	logger *slog.Logger

	cmd      *exec.Cmd
	stdin    *os.File
	stdout   *os.File
	conn     *conn
	stderr   *tailbuf.Buffer
	exited   chan struct{} // closed once the process has been reaped
	caps     map[string]json.RawMessage
	closeMu  sync.Mutex
	closed   bool
	closeErr error

	docMu sync.Mutex
	docs  map[string]*openDoc // by URI

	diagMu  sync.Mutex
	diags   map[string]*diagState // by URI
	diagSig chan struct{}         // closed and replaced on every publish

	progMu   sync.Mutex
	active   map[string]bool // work-done progress tokens begun and not ended
	lastProg time.Time       // last progress event, or the start
	progSig  chan struct{}   // closed and replaced on every progress event
}

type openDoc struct {
	version int
	text    string
}

type diagState struct {
	version int // the document version they are for; -1 when unknown
	gen     int // publishes received
	items   []Diagnostic
}

// Start launches the server described by spec in root (an absolute
// directory), performs the initialize handshake and returns a ready
// Client. The process gets its own process group, so Close can stop
// helpers it spawned (tsserver under typescript-language-server).
func Start(ctx context.Context, spec ServerSpec, root string, logger *slog.Logger) (*Client, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	path, err := LookPath(spec.Command)
	if err != nil {
		return nil, &NoServerError{Tried: []string{spec.Command}, Cause: err}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	c := &Client{spec: spec, root: root, logger: logger, stderr: tailbuf.New(8 << 10),
		exited: make(chan struct{}), docs: map[string]*openDoc{}, diags: map[string]*diagState{}, diagSig: make(chan struct{}),
		active: map[string]bool{}, lastProg: time.Now(), progSig: make(chan struct{})}
	cmd := exec.Command(path, spec.Args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	setProcessGroup(cmd)
	err = cmd.Start()
	inR.Close() // the child holds its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, &StartError{Server: spec.Name, Err: err}
	}
	c.cmd, c.stdin, c.stdout = cmd, inW, outR
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	c.conn = newConn(outR, inW, c.handle)

	if err := c.initialize(ctx); err != nil {
		c.kill()
		return nil, &StartError{Server: spec.Name, Err: err, Stderr: strings.TrimSpace(c.stderr.String())}
	}
	if logger != nil {
		logger.InfoContext(ctx, "language server started", "server", spec.Name, "root", root, "pid", cmd.Process.Pid)
	}
	return c, nil
}

// Name returns the server's name ("gopls").
func (c *Client) Name() string { return c.spec.Name }

// Root returns the workspace root the server was started for.
func (c *Client) Root() string { return c.root }

// Alive reports whether the connection still works.
func (c *Client) Alive() bool {
	select {
	case <-c.conn.done:
		return false
	default:
		return true
	}
}

func (c *Client) initialize(ctx context.Context) error {
	rootURI := URI(c.root)
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]any{"name": "tether"},
		"rootUri":          rootURI,
		"rootPath":         c.root,
		"workspaceFolders": []map[string]any{{"uri": rootURI, "name": filepath.Base(c.root)}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"dynamicRegistration": false},
				"definition":         map[string]any{"linkSupport": true},
				"implementation":     map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"callHierarchy":      map[string]any{},
				"typeHierarchy":      map[string]any{},
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
			"workspace": map[string]any{
				"symbol":           map[string]any{},
				"workspaceFolders": true,
				"configuration":    true,
			},
			// Progress reports tell the client when the server is still
			// loading the project (see WaitIdle).
			"window": map[string]any{"workDoneProgress": true},
		},
	}
	switch {
	case c.spec.InitializationOptions != nil:
		params["initializationOptions"] = c.spec.InitializationOptions
	case c.spec.Init != nil:
		if opts := c.spec.Init(c.cmd.Path); opts != nil {
			params["initializationOptions"] = opts
		}
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := c.conn.call(ctx, "initialize", params, &res); err != nil {
		return err
	}
	c.caps = res.Capabilities
	return c.conn.notify("initialized", map[string]any{})
}

// Supports reports whether the server announced a capability, such as
// "typeHierarchyProvider" or "callHierarchyProvider".
func (c *Client) Supports(capability string) bool {
	v, ok := c.caps[capability]
	return ok && string(v) != "false" && string(v) != "null"
}

// handle answers what the server sends on its own.
func (c *Client) handle(method string, params json.RawMessage) (any, error) {
	switch method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if json.Unmarshal(params, &p) == nil {
			c.publish(p)
		}
		return nil, nil
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.progress(string(p.Token), p.Value.Kind)
		}
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		out := make([]any, len(p.Items))
		for i := range out {
			out[i] = c.spec.Settings
		}
		return out, nil
	case "workspace/workspaceFolders":
		return []map[string]any{{"uri": URI(c.root), "name": filepath.Base(c.root)}}, nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "window/showDocument":
		return nil, nil
	case "workspace/applyEdit":
		// Edits go through Tether's file tools and their approvals, never
		// through the language server.
		return map[string]any{"applied": false, "failureReason": "this client does not apply edits"}, nil
	case "window/logMessage", "window/showMessage":
		if c.logger != nil {
			var p struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(params, &p)
			c.logger.Debug("language server message", "server", c.spec.Name, "message", p.Message)
		}
		return nil, nil
	}
	return nil, &RPCError{Code: CodeMethodNotFound, Message: "method not supported by client: " + method}
}

func (c *Client) publish(p publishDiagnosticsParams) {
	c.diagMu.Lock()
	defer c.diagMu.Unlock()
	st := c.diags[p.URI]
	if st == nil {
		st = &diagState{}
		c.diags[p.URI] = st
	}
	st.gen++
	st.items = p.Diagnostics
	st.version = -1
	if p.Version != nil {
		st.version = *p.Version
	}
	close(c.diagSig)
	c.diagSig = make(chan struct{})
}

// Sync makes the server see text as the content of the file at path
// (absolute): didOpen the first time, didChange when the text changed.
func (c *Client) Sync(ctx context.Context, path string, text string) error {
	uri := URI(path)
	c.docMu.Lock()
	defer c.docMu.Unlock()
	d := c.docs[uri]
	if d == nil {
		d = &openDoc{version: 1, text: text}
		if err := c.conn.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": c.spec.languageID(path), "version": d.version, "text": text}}); err != nil {
			return err
		}
		c.docs[uri] = d
		c.progMu.Lock()
		c.lastProg = time.Now() // give the server a moment to start loading
		c.progMu.Unlock()
		return nil
	}
	if d.text == text {
		return nil
	}
	d.version++
	d.text = text
	return c.conn.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": d.version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// Documents returns the paths of the documents the server has open, in no
// particular order.
func (c *Client) Documents() []string {
	c.docMu.Lock()
	defer c.docMu.Unlock()
	out := make([]string, 0, len(c.docs))
	for uri := range c.docs {
		if p, err := Path(uri); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// CloseDocument tells the server to forget an open document (didClose),
// for a file that was deleted; the server reads it from disk again if it
// still matters.
func (c *Client) CloseDocument(ctx context.Context, path string) error {
	uri := URI(path)
	c.docMu.Lock()
	defer c.docMu.Unlock()
	if _, ok := c.docs[uri]; !ok {
		return nil
	}
	delete(c.docs, uri)
	return c.conn.notify("textDocument/didClose", map[string]any{"textDocument": textDocumentIdentifier{URI: uri}})
}

// Close shuts the server down the way LSP asks (shutdown request, then the
// exit notification), waits for the process, and kills its process group
// if it does not exit in time. The process is always reaped and the
// reader goroutine stopped when Close returns.
func (c *Client) Close(ctx context.Context) error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closed {
		return c.closeErr
	}
	c.closed = true
	sctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
	defer cancel()
	var err error
	if c.Alive() {
		if err = c.conn.call(sctx, "shutdown", nil, nil); err == nil {
			_ = c.conn.notify("exit", nil)
		}
	}
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(3 * time.Second):
		killGroup(c.cmd)
		<-c.exited
		if err == nil {
			err = fmt.Errorf("lsp: %s did not exit after shutdown and was killed", c.spec.Name)
		}
	}
	killGroup(c.cmd) // helpers the server left behind
	c.stdout.Close()
	<-c.conn.done
	if err != nil {
		err = fmt.Errorf("lsp: shut down %s: %w", c.spec.Name, err)
	}
	c.closeErr = err
	if c.logger != nil {
		c.logger.Info("language server stopped", "server", c.spec.Name, "root", c.root)
	}
	return err
}

// kill stops a server that failed to initialise.
func (c *Client) kill() {
	c.closeMu.Lock()
	c.closed = true
	c.closeMu.Unlock()
	c.stdin.Close()
	killGroup(c.cmd)
	<-c.exited
	c.stdout.Close()
	<-c.conn.done
}

// ShutdownTimeout bounds the shutdown request in Close; a server that has
// not answered by then is killed.
const ShutdownTimeout = 10 * time.Second
