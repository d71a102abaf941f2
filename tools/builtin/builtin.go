// Package builtin wires Tether's built-in tools to a workspace: the file
// tools (fstools), search_workspace and list_files (search),
// run_terminal_command (terminal) and get_diagnostics (diag), all confined
// by one *safety.Workspace.
//
//	ws, err := safety.OpenWorkspace(dir)
//	…
//	var reg tools.Registry
//	shell, err := builtin.Register(&reg, ws, builtin.Options{Sandbox: ws.NewSandbox()})
//
// One Registry (and so one Shell) per agent session: the shell keeps the
// session's working directory and exported variables.
package builtin

import (
	"errors"
	"fmt"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/diag"
	"github.com/tetherdev/tether/tools/fstools"
	"github.com/tetherdev/tether/tools/search"
	"github.com/tetherdev/tether/tools/terminal"
)

// Options choose and configure the built-in tools. The zero value gives
// every tool, with an unsandboxed terminal.
type Options struct {
	// Terminal configures run_terminal_command; Root and ResolveDir are
	// filled in from the workspace, and Sandbox from Options.Sandbox.
	Terminal terminal.Config
	// Sandbox, when set, confines every command with Landlock.
	Sandbox *safety.Sandbox
	// Contain runs every command in a safety.KillDomain: a helper process
	// that outlives the shell, dies with the agent and kills whatever the
	// command left running. With Sandbox set, the domain confines too.
	Contain bool
	// NoTerminal leaves run_terminal_command out (read-only hosts, or
	// hosts that run commands their own way).
	NoTerminal bool
	// Files, when set, is what the file tools read and write through
	// instead of the workspace itself: an editor's buffers (acp). It must
	// confine paths as the workspace does; listing, search and diagnostics
	// still read the workspace.
	Files fstools.Workspace
}

// Tools returns the built-in tools over ws, in the order a prompt lists
// them, and the Shell behind run_terminal_command (nil with NoTerminal).
func Tools(ws *safety.Workspace, opts Options) ([]tools.Tool, *terminal.Shell, error) {
	if ws == nil {
		return nil, nil, errors.New("builtin: nil workspace")
	}
	var files fstools.Workspace = ws
	if opts.Files != nil {
		files = opts.Files
	}
	ts := []tools.Tool{
		fstools.NewRead(files),
		fstools.NewWrite(files),
		fstools.NewCreate(files),
		fstools.NewEdit(files),
		fstools.NewModifyLines(files),
		fstools.NewPatch(files),
		search.NewList(ws),
		search.NewSearch(ws),
		fstools.NewSize(files),
		fstools.NewFolder(files),
		fstools.NewRename(files),
		diag.New(ws),
	}
	if opts.NoTerminal {
		return ts, nil, nil
	}
	cfg := opts.Terminal
	cfg.Root = ws.Root()
	cfg.ResolveDir = WorkingDir(ws)
	if opts.Sandbox != nil {
		if err := opts.Sandbox.Available(); err != nil && !opts.Sandbox.BestEffort {
			return nil, nil, fmt.Errorf("builtin: %w", err)
		}
		cfg.Sandbox = opts.Sandbox.Wrap
	}
	if opts.Contain {
		cfg.Sandbox = nil
		cfg.Domain = &safety.KillDomain{Sandbox: opts.Sandbox}
	}
	sh, err := terminal.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return append(ts, sh.Tool()), sh, nil
}

// Register adds the built-in tools to r.
func Register(r *tools.Registry, ws *safety.Workspace, opts Options) (*terminal.Shell, error) {
	ts, sh, err := Tools(ws, opts)
	if err != nil {
		return nil, err
	}
	return sh, r.Register(ts...)
}

// WorkingDir adapts the workspace's OpChdir check to terminal.Config's
// ResolveDir. A directory the policy would only allow with a human's
// confirmation is refused: a command's working directory is not the place
// to ask.
func WorkingDir(ws *safety.Workspace) func(string) (string, error) {
	return func(dir string) (string, error) {
		pc := ws.Check(dir, safety.OpChdir)
		switch pc.Decision {
		case safety.Allow:
			return pc.Resolved, nil
		case safety.Confirm:
			return "", fmt.Errorf("working directory %q needs approval (%s); run the command from the workspace root instead", dir, pc.Reason)
		}
		if pc.Err != nil {
			return "", pc.Err
		}
		return "", fmt.Errorf("working directory %q refused: %s", dir, pc.Reason)
	}
}
