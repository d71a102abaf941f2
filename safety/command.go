package safety

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CommandAnalysis is what AnalyzeCommand finds in one shell command line.
//
// Invariants: Severity is the maximum over Concerns (and so over every
// Command); every Concern with Command ≥ 0 indexes Commands; every
// PathAccess.Command indexes Commands or is -1 for a path that belongs to the
// whole line (a redirect on a compound command).
type CommandAnalysis struct {
	// Input is the command line as given.
	Input string `json:"input"`

	// Severity is the highest tier over all sub-commands.
	Severity Severity `json:"severity"`

	// Commands lists every simple command that can run, in source order, a
	// wrapper before the command it runs (`sudo rm x` → sudo, rm).
	Commands []Command `json:"commands"`

	// Paths lists the files each command reads or writes as far as static
	// analysis can tell: redirect targets and the file arguments of known
	// commands (cat, head, grep, source … read; cp, mv, tee, sed -i, touch,
	// rm and output redirects write; cd chdirs). Paths are as written after
	// quote removal, with a leading "~" kept: the caller resolves them
	// against its workspace (see Workspace.Check) and applies file
	// sensitivity, so that `cat .env` needs approval like reading .env with
	// a file tool does. The list is a floor, not a proof: a program may open
	// files no argument names.
	Paths []PathAccess `json:"paths,omitempty"`

	// Concerns are the reasons behind Severity and behind any refusal to
	// auto-approve, each tied to the sub-command it is about.
	Concerns []Concern `json:"concerns,omitempty"`

	// Unanalyzable is true when part of the line cannot be judged statically
	// (a parse error, a dynamic command name, eval of a variable, …). Such a
	// line is at least high and never auto-approved.
	Unanalyzable bool `json:"unanalyzable,omitempty"`
}

// Command is one simple command found in a command line.
type Command struct {
	// Name is the command word after quote removal and brace expansion,
	// as written: "/bin/rm" stays "/bin/rm" (rules match it as written;
	// severity looks at its base name).
	Name string `json:"name"`
	// Args are the following words, normalised the same way. A word whose
	// value is known only at run time keeps its source text ("$x").
	Args []string `json:"args,omitempty"`
	// Wrapper says whether this command runs another one (listed next, with
	// Parent pointing back here).
	Wrapper WrapperKind `json:"wrapper,omitempty"`
	// Parent is the index of the wrapper that runs this command, or -1.
	Parent int `json:"parent"`
	// Severity is the highest tier of this command's own concerns.
	Severity Severity `json:"severity"`
	// Dynamic is true when some word is only known at run time.
	Dynamic bool `json:"dynamic,omitempty"`
	// Effects lists what the command does in the closed vocabulary of
	// Effect, each once, in the order found.
	Effects []Effect `json:"effects,omitempty"`

	// Unvetted lists the options of a command whose options the analyser
	// models that are unknown or not harmless (code, configuration, system
	// changes). Neither an allow rule nor the read-only approval covers the
	// command unless the rule names each of them.
	Unvetted []UnvettedOption `json:"unvetted,omitempty"`

	words []word // Name and Args with their quoting facts, for rules
	// spans[j] is the number of words of the option that starts at
	// words[j] (1, or 2 with a separate value) when the command's option
	// model knows it, else 0: allow rules let such options stand between
	// their words. nil when there are none.
	spans []uint8
	// assigns are the command's own NAME=value prefix assignments, as
	// written; a value known only at run time is never equal to a rule's.
	assigns []string
	// effectSet has a bit (Effect.bit) for each effect in Effects.
	effectSet uint32
}

// UnvettedOption is one option that keeps rules from covering a command.
type UnvettedOption struct {
	Option string `json:"option"` // as written, with its value
	Reason string `json:"reason"`
}

// WrapperKind classifies commands that run other commands.
type WrapperKind int

const (
	// NotWrapper is an ordinary command.
	NotWrapper WrapperKind = iota
	// Transparent wrappers (the time keyword, timeout, nice, nohup, stdbuf,
	// command, env with harmless assignments, sh -c '<literal>', xargs
	// with options that only batch its input) are judged by the command
	// they run and need no rule of their own.
	Transparent
	// Opaque wrappers (sudo, doas, other xargs, find -exec, watch, setsid,
	// env -S/-i, npx, eval, exec, source, trap) are unwrapped for severity
	// but need a rule of their own to be auto-approved.
	Opaque
)

var wrapperNames = [...]string{"", "transparent", "opaque"}

func (k WrapperKind) String() string {
	if k < 0 || int(k) >= len(wrapperNames) {
		return fmt.Sprintf("WrapperKind(%d)", int(k))
	}
	return wrapperNames[k]
}

// MarshalText encodes k as its name ("" for NotWrapper).
func (k WrapperKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// PathAccess is one file a command reads, writes or changes into.
type PathAccess struct {
	Path    string `json:"path"`
	Op      Op     `json:"op"`
	Command int    `json:"command"` // index into Commands, -1 for the whole line
	// Redirect is true when the access comes from a redirection rather
	// than from an argument.
	Redirect bool `json:"redirect,omitempty"`
}

// MarshalJSON shows Op by name ("write", not 1).
func (p PathAccess) MarshalJSON() ([]byte, error) {
	type plain PathAccess
	return json.Marshal(struct {
		plain
		Op string `json:"op"`
	}{plain(p), p.Op.String()})
}

// Concern is one finding of the analysis.
type Concern struct {
	// Command indexes CommandAnalysis.Commands, or is -1 for the whole line.
	Command  int      `json:"command"`
	Severity Severity `json:"severity"`
	// NoAutoApprove is true when no allow rule may auto-approve the line
	// because of this finding (a file write, an escape-hatch flag, a
	// dangerous environment assignment, a definition, an ANSI-C word,
	// anything unanalysable, anything critical).
	NoAutoApprove bool   `json:"no_auto_approve,omitempty"`
	Reason        string `json:"reason"`
	// Effect is the effect the concern is about, when it is one of the
	// vocabulary's; its Severity is then at least Effect.Severity().
	Effect Effect `json:"effect,omitempty"`
}

// Reasons returns every concern as a readable sentence naming its
// sub-command, most severe first and otherwise in source order.
func (a CommandAnalysis) Reasons() []string {
	out := make([]string, 0, len(a.Concerns))
	for sev := SeverityCritical; sev >= SeverityNone; sev-- {
		for _, c := range a.Concerns {
			if c.Severity == sev {
				out = append(out, a.describe(c))
			}
		}
	}
	return out
}

func (a CommandAnalysis) describe(c Concern) string {
	if c.Command >= 0 && c.Command < len(a.Commands) {
		return fmt.Sprintf("%s: %s (%s)", a.Commands[c.Command].Name, c.Reason, c.Severity)
	}
	return fmt.Sprintf("%s (%s)", c.Reason, c.Severity)
}

// AutoApprovable reports whether any rule could auto-approve this line:
// nothing critical, nothing unanalysable and no concern that forbids it.
func (a CommandAnalysis) AutoApprovable() bool {
	if a.Unanalyzable || a.Severity >= SeverityCritical {
		return false
	}
	for _, c := range a.Concerns {
		if c.NoAutoApprove {
			return false
		}
	}
	return true
}

// String renders the command as a shell-like line for messages.
func (c Command) String() string {
	if len(c.Args) == 0 {
		return c.Name
	}
	return c.Name + " " + strings.Join(c.Args, " ")
}
