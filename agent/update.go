package agent

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// Update changes the Executor's settings for the runs that start after it
// returns, without rebuilding the Executor, as an editor's settings take
// effect when the user changes them: change receives a copy of the Config
// the Executor was made with (or last updated to) and edits it; the
// result is checked as New checks a Config, and an error leaves the
// settings as they were. A run already under way keeps the settings it
// started with.
//
// Every field is read per run except the four that hold the Executor's
// own state, which Update refuses to change (make a new Executor
// instead): Workspace, Checkpoints, Grants and Session. So auto-approval
// (Policy, Approver, ApprovalTimeout), the command rules (CommandRules,
// Safety), the tool set (Tools, Skills, Subagents, ToolMiddleware,
// Staging), limits and timeouts (MaxIterations, ToolTimeout, Parallel,
// MaxRepeatedFailures, PivotAfter), the model and its options, the modes,
// ToolCalling, the prompt, project context, compaction, Sink, Clock and
// Logger all take effect from the next run. The model's capabilities are
// asked again after an Update.
func (e *Executor) Update(change func(c *Config)) error {
	e.updateMu.Lock()
	defer e.updateMu.Unlock()
	e.mu.RLock()
	prev := e.host
	e.mu.RUnlock()
	next := prev
	change(&next)
	switch {
	case next.Workspace != prev.Workspace:
		return fmt.Errorf("%w: Update cannot change Workspace; make a new Executor for another workspace", ErrConfig)
	case next.Checkpoints != prev.Checkpoints:
		return fmt.Errorf("%w: Update cannot change Checkpoints; they hold the Executor's undo history", ErrConfig)
	case next.Grants != prev.Grants:
		return fmt.Errorf("%w: Update cannot change Grants; they are the session's answers", ErrConfig)
	case next.Session != prev.Session:
		return fmt.Errorf("%w: Update cannot change Session; it names the Executor's checkpoints", ErrConfig)
	}
	if err := e.configure(next); err != nil {
		return err
	}
	e.capsMu.Lock()
	e.caps = nil
	e.capsMu.Unlock()
	return nil
}

// runState is what the Executor derives from its settings, as a run sees
// it: the safety policy and the context layer's registries.
type runState struct {
	safety    *safety.Policy
	userTools *tools.Registry
	skills    map[string]Skill
}

// configure checks cfg, fills its defaults, derives the safety policy and
// the extended tool registry, and makes them the Executor's settings.
func (e *Executor) configure(cfg Config) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if cfg.Tools == nil {
		cfg.Tools = &tools.Registry{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler) // silent unless the host asks
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeAgent
	}
	host := cfg
	t := &Executor{cfg: cfg}
	e.mu.RLock()
	if e.host.Staging == nil && cfg.Staging == nil && cfg.ToolCalling == ToolCallingEnvelope {
		// Keep the Stager envelope mode made for itself, and with it the
		// tokens the model holds, across an Update (nil before the first).
		t.cfg.Staging = e.cfg.Staging
	}
	e.mu.RUnlock()
	var err error
	if t.safety, err = cfg.safetyPolicy(); err != nil {
		return err
	}
	if err := t.extend(); err != nil {
		return err
	}
	e.mu.Lock()
	e.cfg, e.host, e.safety = t.cfg, host, t.safety
	e.userTools, e.skills = t.userTools, t.skills
	e.mu.Unlock()
	return nil
}

// config returns a copy of the current settings.
func (e *Executor) config() Config {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cfg
}

// snapshot returns a copy of the current settings and what was derived
// from them, for one run.
func (e *Executor) snapshot() (*Config, runState) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	cfg := e.cfg
	return &cfg, runState{safety: e.safety, userTools: e.userTools, skills: e.skills}
}
