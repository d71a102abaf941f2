package lsptools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// Files is the part of *safety.Workspace the tools use: every path a
// model names is checked and read through it.
type Files interface {
	Root() string
	Check(path string, op safety.Op) safety.PathCheck
	ReadFile(path string) ([]byte, error)
	FS() fs.FS
}

// Servers hands out a running language server for a file; *lsp.Manager
// implements it. The error wraps lsp.ErrNoServer when nothing serves the
// file's type.
type Servers interface {
	ClientFor(ctx context.Context, path string) (*lsp.Client, error)
}

// Defaults for Config's zero fields.
const (
	DefaultContextLines  = 2
	DefaultMaxReferences = 30 // enough to judge a change's reach without flooding the context
	DefaultMaxSymbols    = 50
	DefaultTimeout       = 2 * time.Minute // the first call may wait for the server to load the workspace
)

// Config wires the tools to a workspace and its language servers.
type Config struct {
	Files   Files
	Servers Servers
	// ContextLines around a location (default 2; negative for none).
	ContextLines int
	// MaxReferences shown by find_references (default 30); the rest are
	// counted, per file.
	MaxReferences int
	// MaxSymbols shown by find_symbol and by the hierarchies (default 50).
	MaxSymbols int
	// ReadRoots are directories outside the workspace whose files may be
	// shown as context when a location lands there (GOROOT/src, the module
	// cache). Outside the workspace and these, only the path is shown.
	ReadRoots []string
	// Diagnostics is the get_diagnostics tool to fall back on when no
	// language server serves the path (or the path is a directory), for
	// example tools/diag's, which runs go vet or tsc. Nil: such calls get
	// a plain "no language server" answer.
	Diagnostics tools.Tool
}

// kit holds what every tool shares.
type kit struct {
	cfg   Config
	roots []string // ReadRoots, resolved
}

func newKit(cfg Config) *kit {
	if cfg.ContextLines == 0 {
		cfg.ContextLines = DefaultContextLines
	}
	if cfg.ContextLines < 0 {
		cfg.ContextLines = 0
	}
	if cfg.MaxReferences <= 0 {
		cfg.MaxReferences = DefaultMaxReferences
	}
	if cfg.MaxSymbols <= 0 {
		cfg.MaxSymbols = DefaultMaxSymbols
	}
	k := &kit{cfg: cfg}
	for _, r := range cfg.ReadRoots {
		if abs, err := filepath.Abs(r); err == nil {
			if res, err := filepath.EvalSymlinks(abs); err == nil {
				abs = res
			}
			k.roots = append(k.roots, abs)
		}
	}
	return k
}

// Tools returns the nine code-intelligence tools: get_document_symbols,
// find_definition, find_references, find_implementations, find_symbol,
// get_hover_info, get_call_hierarchy, get_type_hierarchy and
// get_diagnostics. All are read-only.
func Tools(cfg Config) ([]tools.Tool, error) {
	if cfg.Files == nil || cfg.Servers == nil {
		return nil, errors.New("lsptools: Config needs Files (the workspace) and Servers (an *lsp.Manager)")
	}
	k := newKit(cfg)
	return []tools.Tool{
		k.documentSymbols(),
		k.definition(),
		k.references(),
		k.implementations(),
		k.findSymbol(),
		k.hover(),
		k.callHierarchy(),
		k.typeHierarchy(),
		k.diagnostics(),
	}, nil
}

// Register adds the tools to reg. A get_diagnostics already registered
// (tools/diag's) is replaced by the language-server one and becomes its
// fallback, unless cfg.Diagnostics names another.
func Register(reg *tools.Registry, cfg Config) error {
	if cfg.Diagnostics == nil {
		if t, name, err := reg.Lookup(DiagnosticsName); err == nil && name == DiagnosticsName {
			cfg.Diagnostics = t
		}
	}
	ts, err := Tools(cfg)
	if err != nil {
		return err
	}
	replace := "" // the diagnostics tool the language server's wraps, if any
	if cfg.Diagnostics != nil {
		replace = DiagnosticsName
	}
	if err := reg.Replace(replace, ts...); err != nil {
		return fmt.Errorf("lsptools: %w", err)
	}
	return nil
}

// noServer is the graceful answer when no language server serves a
// file: a plain result, not an error, pointing at the text tools.
func noServer(err error, what string) (tools.Result, bool) {
	why, ok := serverProblem(err)
	if !ok {
		return tools.Result{}, false
	}
	return tools.Text(fmt.Sprintf("No %s: %s. Use search_workspace and read_file instead.", what, why)), true
}

// serverProblem describes an error that means "no working language server
// for this file" (none installed, or one that fails to start).
func serverProblem(err error) (string, bool) {
	var ns *lsp.NoServerError
	var se *lsp.StartError
	switch {
	case errors.As(err, &ns):
		return ns.Error(), true
	case errors.As(err, &se):
		why := firstLine(se.Stderr)
		if why == "" {
			why = se.Err.Error()
		}
		return fmt.Sprintf("the %s language server is installed but failed to start (%s)", se.Server, why), true
	}
	return "", false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
