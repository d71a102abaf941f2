package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/terminal"
)

// ModeSpec defines a mode: which tools the model gets, whether the run
// may change anything, how the system prompt introduces the task, and the
// sampling and iteration limits. The four built-in modes are ModeSpec
// values (see BuiltinModes); a host adds its own, such as Ask or
// Architect, through Config.Modes, on the same Executor and Registry.
//
// A mode's tool restriction and its read-only flag are enforced in code:
// a call to a tool the mode does not offer is refused whatever the model
// writes, and the prompt saying so is a courtesy.
type ModeSpec struct {
	// Name is what Input.Mode and Config.Mode select.
	Name Mode
	// Role opens the system prompt ("You are a planning assistant…");
	// empty means the agent mode's role.
	Role string
	// Prompt is added to the system prompt after the built-in guidance.
	Prompt string
	// Tools, when not empty, are the only tools offered, by canonical
	// name. Allow, when set, also offers each tool whose declared spec it
	// accepts (for example func(s tools.Spec) bool { return !s.OpenWorld }).
	// With neither, every tool of the registry is offered.
	Tools []string
	Allow func(tools.Spec) bool
	// ReadOnly offers and runs only tools that declare ReadOnly (within
	// Tools and Allow); nothing is written, so no checkpoint or approval
	// is needed.
	ReadOnly bool
	// GitReads also lets a read-only mode run read-only git commands
	// through the command tool, checked by safety analysis.
	GitReads bool
	// Temperature overrides Config.Temperature in this mode.
	Temperature *float64
	// MaxIterations overrides the iteration limit in this mode; zero means
	// Config.MaxIterations, or the default (25, or 10 when ReadOnly).
	MaxIterations int
}

// builtinModes are the four modes every Executor knows.
var builtinModes = []ModeSpec{
	{Name: ModeAgent,
		Role: "You are a coding agent working in the user's workspace. You read code, edit files and run commands with your tools to complete the user's task. " +
			"Work step by step: look before you change, make the change, check it (build or tests) when you can."},
	{Name: ModeExplore, ReadOnly: true,
		Role: "You are a code exploration assistant. Answer the user's question about the codebase by reading and searching it with the read-only tools you have. " +
			"You cannot change files or run commands; cite the files and lines your answer rests on."},
	{Name: ModePlan, ReadOnly: true,
		Role: "You are a planning assistant. Study the codebase with the read-only tools you have and write a concrete, step-by-step implementation plan: " +
			"which files change, how, and in what order, with the risks. You cannot change files; the plan is your answer."},
	{Name: ModeReview, ReadOnly: true, GitReads: true,
		Role: "You are a security and code reviewer. Review the code the user points to for bugs, security problems and risky patterns, using the read-only tools you have " +
			"and read-only git commands (git status, git diff, git log, git show, git blame) through the command tool. You cannot change anything. " +
			"Report each finding with its file, line, severity and a suggested fix."},
}

// BuiltinModes returns the built-in modes: agent, explore, plan, review.
// A host can start from one to define its own.
func BuiltinModes() []ModeSpec { return slices.Clone(builtinModes) }

// restricts reports whether the mode offers less than the whole registry.
func (m ModeSpec) restricts() bool { return m.ReadOnly || len(m.Tools) > 0 || m.Allow != nil }

// offers reports whether the mode offers the tool described by spec.
func (m ModeSpec) offers(spec tools.Spec) bool {
	if m.ReadOnly && !spec.ReadOnly && !(m.GitReads && spec.Name == terminal.Name) {
		return false
	}
	if len(m.Tools) == 0 && m.Allow == nil {
		return true
	}
	return slices.Contains(m.Tools, spec.Name) || (m.Allow != nil && m.Allow(spec))
}

// gate returns the runner's gate for the mode: nil when it allows all.
// A call passes when the mode offers its tool and, in a read-only mode,
// when the prepared call declares only reads, or (with GitReads) a
// command and no writes, which the terminal handler then holds to
// read-only git. The declared effects decide, not the tool's name: a
// read-only tool whose call would write is refused.
func (m ModeSpec) gate() func(c *ToolCall) error {
	if !m.restricts() {
		return nil
	}
	return func(c *ToolCall) error {
		spec := c.Spec
		spec.Name = c.Tool
		if !m.offers(spec) && !(m.ReadOnly && !spec.ReadOnly) {
			return fmt.Errorf("%w: %s is not available in %s mode; use the tools this mode offers", ErrModeTool, c.Tool, m.Name)
		}
		if !m.ReadOnly {
			return nil
		}
		e := c.Effects
		switch {
		case m.offers(spec) && spec.ReadOnly && e.ReadOnly && len(e.Writes) == 0 && e.Command == "":
			return nil
		case m.offers(spec) && m.GitReads && c.Tool == terminal.Name && e.Command != "" && len(e.Writes) == 0:
			return nil
		}
		return fmt.Errorf("%w: %s is not available in %s mode, which only reads. Use the read-only tools to investigate and describe the change you would make instead", ErrReadOnlyMode, c.Tool, m.Name)
	}
}

// modeSpec finds the mode named m: the host's first, then the built-ins.
func (c *Config) modeSpec(m Mode) (ModeSpec, error) {
	for _, s := range c.Modes {
		if s.Name == m {
			return s, nil
		}
	}
	for _, s := range builtinModes {
		if s.Name == m {
			return s, nil
		}
	}
	return ModeSpec{}, fmt.Errorf("%w: unknown mode %q (want %s)", ErrConfig, m, strings.Join(c.modeNames(), ", "))
}

func (c *Config) modeNames() []string {
	var names []string
	for _, s := range append(slices.Clone(c.Modes), builtinModes...) {
		if !slices.Contains(names, string(s.Name)) {
			names = append(names, string(s.Name))
		}
	}
	return names
}

// validateModes checks the host's modes: named, each name once.
func (c *Config) validateModes() error {
	seen := map[Mode]bool{}
	for i, s := range c.Modes {
		switch {
		case strings.TrimSpace(string(s.Name)) == "":
			return fmt.Errorf("%w: Modes[%d] has no name", ErrConfig, i)
		case seen[s.Name]:
			return fmt.Errorf("%w: mode %q is defined twice in Modes", ErrConfig, s.Name)
		case s.MaxIterations < 0:
			return fmt.Errorf("%w: mode %q: negative MaxIterations", ErrConfig, s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}
