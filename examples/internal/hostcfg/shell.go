package hostcfg

import (
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// SessionShells is a session.WithSessionConfig hook giving every session
// its own run_terminal_command shell, built with opts: a new session
// starts in the workspace root with a fresh environment, and a `cd` or
// `export` in one session never reaches another. The session's registry
// is the host's with the shell tool replaced, so MCP and language-server
// tools stay shared.
func SessionShells(ws *safety.Workspace, opts builtin.Options) func(id string, cfg *agent.Config) error {
	return func(_ string, cfg *agent.Config) error {
		_, sh, err := builtin.Tools(ws, opts)
		if err != nil || sh == nil {
			return err
		}
		t := sh.Tool()
		name := t.Describe().Name
		reg := cfg.Tools.Filter(func(s tools.Spec) bool { return s.Name != name })
		if err := reg.Register(t); err != nil {
			return err
		}
		cfg.Tools, cfg.CommandDir = reg, sh.Cwd
		return nil
	}
}
