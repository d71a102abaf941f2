package agent

import (
	"fmt"
	"slices"

	"github.com/tetherdev/tether/safety"
)

// safetyPolicy returns the policy that judges the runs' actions. Each
// setting has one home: the workspace is Config.Workspace, the command
// rules Config.CommandRules (or Safety.Rules, but not two different sets),
// and "nobody to ask" is Config.Policy (approval.Headless), never the
// safety policy, which only judges. A Config.Safety is copied and its
// unset Workspace, Rules and Logger are filled from Config; a setting
// stated twice with different values is an error naming both fields,
// since silently preferring one would judge against a workspace or rules
// the host did not mean.
func (c *Config) safetyPolicy() (*safety.Policy, error) {
	if c.Safety == nil {
		rules := c.CommandRules
		if rules.Logger == nil {
			rules.Logger = c.Logger
		}
		return &safety.Policy{Workspace: c.Workspace, Rules: rules, Logger: c.Logger}, nil
	}
	p := *c.Safety
	switch {
	case p.Headless:
		return nil, fmt.Errorf("%w: Config.Safety.Headless is set; the safety policy only judges, and who answers a confirm is Config.Policy's: leave Headless false and set Policy: approval.Headless(nil) (or your Stager)", ErrConfig)
	case p.Workspace != nil && c.Workspace == nil:
		return nil, fmt.Errorf("%w: Config.Safety.Workspace is set but Config.Workspace is nil; set Config.Workspace (file tools and checkpoints use it) and leave Config.Safety.Workspace nil", ErrConfig)
	case p.Workspace != nil && p.Workspace != c.Workspace:
		return nil, fmt.Errorf("%w: Config.Safety.Workspace (%s) and Config.Workspace (%s) differ; set one of them: Config.Safety.Workspace may be left nil", ErrConfig, p.Workspace.Root(), c.Workspace.Root())
	case !rulesUnset(p.Rules) && !rulesUnset(c.CommandRules) && !sameRules(p.Rules, c.CommandRules):
		return nil, fmt.Errorf("%w: Config.Safety.Rules and Config.CommandRules differ; set the rules in one of them", ErrConfig)
	}
	p.Workspace = c.Workspace
	if rulesUnset(p.Rules) {
		p.Rules = c.CommandRules
	}
	if p.Logger == nil {
		p.Logger = c.Logger
	}
	if p.Rules.Logger == nil {
		p.Rules.Logger = p.Logger
	}
	return &p, nil
}

// rulesUnset reports whether r decides nothing of its own (its Logger
// aside): the zero rules.
func rulesUnset(r safety.CommandRules) bool {
	return len(r.Allow) == 0 && len(r.Ask) == 0 && len(r.Deny) == 0 && !r.AllowReadOnly
}

// sameRules reports whether a and b decide alike; their Loggers may differ.
func sameRules(a, b safety.CommandRules) bool {
	return slices.Equal(a.Allow, b.Allow) && slices.Equal(a.Ask, b.Ask) &&
		slices.Equal(a.Deny, b.Deny) && a.AllowReadOnly == b.AllowReadOnly
}
