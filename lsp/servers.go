package lsp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ServerSpec says how to run one language server and which files it
// serves.
type ServerSpec struct {
	// Name identifies the server in messages and logs ("gopls").
	Name string
	// Command is looked up on PATH; Args follow it.
	Command string
	Args    []string
	// Env is added to the environment.
	Env []string
	// Languages maps file extensions (with the dot, lower case) to LSP
	// language ids: ".go" → "go", ".tsx" → "typescriptreact".
	Languages map[string]string
	// InitializationOptions and Settings (the answer to
	// workspace/configuration) are server-specific; nil is fine.
	InitializationOptions any
	Settings              any
	// Init, when set and InitializationOptions is nil, computes the
	// initialization options from the server's resolved executable (to
	// find files installed beside it).
	Init func(executable string) any
}

func (s ServerSpec) languageID(path string) string {
	if id, ok := s.Languages[strings.ToLower(filepath.Ext(path))]; ok {
		return id
	}
	return "plaintext"
}

// DefaultServers lists the servers Tether knows, in order of preference
// per extension: gopls for Go, typescript-language-server for
// TypeScript and JavaScript, pyright (then pylsp) for Python,
// rust-analyzer for Rust. Each is used only when installed.
//
// Language servers read the workspace, and some would run its code:
// rust-analyzer is started with build scripts, proc macros and
// check-on-save disabled, since those execute the repository's own
// programs. Hosts that trust a repository can pass their own ServerSpec.
func DefaultServers() []ServerSpec {
	ts := map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
		".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"}
	py := map[string]string{".py": "python", ".pyi": "python"}
	return []ServerSpec{
		{Name: "gopls", Command: "gopls", Languages: map[string]string{".go": "go"}},
		{Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"}, Languages: ts, Init: tsserverBeside},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Languages: py},
		{Name: "pylsp", Command: "pylsp", Languages: py},
		// Build scripts, proc macros and cargo check run the repository's
		// own code; an agent pointed at an unknown repository must not
		// trigger that by asking where a function is defined.
		{Name: "rust-analyzer", Command: "rust-analyzer", Languages: map[string]string{".rs": "rust"},
			InitializationOptions: map[string]any{
				"cargo":       map[string]any{"buildScripts": map[string]any{"enable": false}},
				"procMacro":   map[string]any{"enable": false},
				"checkOnSave": false,
			}},
	}
}

// Manager starts language servers for one workspace on first use, one per
// server, and shuts them all down on Close. The zero value is not usable;
// set Root. It is safe for concurrent use.
type Manager struct {
	// Root is the workspace root (absolute).
	Root string
	// Servers to choose from; nil means DefaultServers().
	Servers []ServerSpec
	// LookPath finds a command; nil means this package's LookPath.
	LookPath func(string) (string, error)
	// Logger receives server starts, stops and messages; nil logs nothing.
	Logger *slog.Logger

	mu      sync.Mutex
	running map[string]*starting // by server name
	closed  bool
}

// starting is a server being started or running: the first caller starts
// it, later callers wait on ready.
type starting struct {
	ready  chan struct{}
	client *Client
	err    error
	failed time.Time // when err was set
}

// ErrManagerClosed: the Manager was closed.
var ErrManagerClosed = errors.New("lsp: manager closed")

// Spec returns the first installed server for path's extension.
func (m *Manager) Spec(path string) (ServerSpec, error) {
	ext := strings.ToLower(filepath.Ext(path))
	servers := m.Servers
	if servers == nil {
		servers = DefaultServers()
	}
	look := m.LookPath
	if look == nil {
		look = LookPath
	}
	var tried []string
	for _, s := range servers {
		if _, ok := s.Languages[ext]; !ok {
			continue
		}
		tried = append(tried, s.Command)
		if _, err := look(s.Command); err == nil {
			return s, nil
		}
	}
	return ServerSpec{}, &NoServerError{Ext: ext, Tried: tried}
}

// ClientFor returns the running server for path, starting it if needed. A
// server that died is started again. The error wraps ErrNoServer when
// nothing serves the file type.
func (m *Manager) ClientFor(ctx context.Context, path string) (*Client, error) {
	spec, err := m.Spec(path)
	if err != nil {
		return nil, err
	}
	return m.client(ctx, spec)
}

// ClientForLanguage returns a running server for files with extension ext
// (".go"), for workspace-wide queries that name no file.
func (m *Manager) ClientForLanguage(ctx context.Context, ext string) (*Client, error) {
	return m.ClientFor(ctx, "x"+ext)
}

func (m *Manager) client(ctx context.Context, spec ServerSpec) (*Client, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrManagerClosed
	}
	if m.running == nil {
		m.running = map[string]*starting{}
	}
	st := m.running[spec.Name]
	if st != nil {
		select {
		case <-st.ready:
			switch {
			case st.err != nil && time.Since(st.failed) < RetryAfter:
				m.mu.Unlock()
				return nil, st.err // do not respawn a broken server on every call
			case st.err != nil || !st.client.Alive():
				st = nil // failed a while ago, or died: start afresh
			}
		default:
		}
	}
	if st == nil {
		st = &starting{ready: make(chan struct{})}
		m.running[spec.Name] = st
		m.mu.Unlock()
		// Start with a context of its own: the server outlives this call.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StartTimeout)
		st.client, st.err = Start(sctx, spec, m.Root, m.Logger)
		cancel()
		if st.err != nil {
			st.failed = time.Now()
			if m.Logger != nil {
				m.Logger.Warn("language server failed to start", "server", spec.Name, "error", st.err.Error())
			}
		}
		close(st.ready)
		return st.client, st.err
	}
	m.mu.Unlock()
	select {
	case <-st.ready:
		return st.client, st.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Running returns the names of the servers currently running.
func (m *Manager) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name, st := range m.running {
		select {
		case <-st.ready:
			if st.err == nil && st.client.Alive() {
				out = append(out, name)
			}
		default:
		}
	}
	slices.Sort(out)
	return out
}

// Close shuts every server down and waits for them.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	running := m.running
	m.running = nil
	m.mu.Unlock()
	var errs []error
	for _, st := range running {
		<-st.ready
		if st.err == nil {
			if err := st.client.Close(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("lsp: close: %w", errors.Join(errs...))
	}
	return nil
}

// RetryAfter is how long a Manager remembers that a server failed to
// start before trying it again.
const RetryAfter = 30 * time.Second

// StartTimeout bounds starting and initialising one server.
const StartTimeout = 60 * time.Second

// LookPath finds a server command on PATH, then in the directory
// "go install" puts programs in ($GOBIN, else $GOPATH/bin, else ~/go/bin),
// so that a gopls installed with "go install golang.org/x/tools/gopls"
// is found even when that directory is not on PATH.
func LookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil || strings.ContainsRune(name, filepath.Separator) {
		return p, err
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	if gopath := os.Getenv("GOPATH"); gopath != "" {
		for _, d := range filepath.SplitList(gopath) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	} else if home, herr := os.UserHomeDir(); herr == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		cand := filepath.Join(d, name)
		if fi, serr := os.Stat(cand); serr == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return cand, nil
		}
	}
	return "", err
}

// tsserverBeside points typescript-language-server at the TypeScript
// installed in the same node_modules (npm install -g typescript
// typescript-language-server puts them side by side), for workspaces that
// do not depend on typescript themselves. Nil when there is none: the
// server then looks in the workspace.
func tsserverBeside(executable string) any {
	real, err := filepath.EvalSymlinks(executable)
	if err != nil {
		return nil
	}
	for dir := filepath.Dir(real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) != "node_modules" {
			continue
		}
		p := filepath.Join(dir, "typescript", "lib", "tsserver.js")
		if _, err := os.Stat(p); err == nil {
			return map[string]any{"tsserver": map[string]any{"path": p}}
		}
		break
	}
	return nil
}
