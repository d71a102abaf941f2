package safety

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Effect names one kind of thing a command does, in a closed vocabulary.
// The analysis lists each command's effects (Command.Effects) and ties
// concerns to them (Concern.Effect); rules can name them ("deny:
// effect:rewrites-remote", see CommandRules). The vocabulary:
//
//	reads               reads a path (from the command's file arguments and options)
//	writes              writes a path
//	deletes             deletes files
//	executes            runs code or another program: inline code that starts a shell,
//	                    a script from outside the workspace, a helper an option names
//	network             sends or fetches data over the network
//	exposes-port        publishes a local port or directory to other machines
//	rewrites-remote     force-updates or deletes refs of a remote repository
//	                    (also spelt force-push)
//	discards-work       throws away uncommitted changes, branches or stashes
//	prints-credentials  prints a token, password or key (gh auth token,
//	                    kubectl config view --raw, aws configure export-credentials)
//	system              changes the state of the machine beyond the workspace
//	loosens-permissions makes files writable by everyone, setuid or owned by
//	                    root, or changes users and privileges
//	sends-data          sends local data to a server (request bodies, uploads,
//	                    form fields, headers read from files)
//	changes-remote      changes state held elsewhere: publishes packages or
//	                    images, changes a forge's repository, deletes or
//	                    changes cloud resources, clusters or infrastructure
//	hidden              does something the line does not show: a name or
//	                    script known only at run time, a spelling another
//	                    shell reads differently, a definition that shadows
//	                    commands
//	runs-project        runs the project's own code through its tools: builds,
//	                    tests, package scripts, a script or program in the
//	                    workspace
//	unknown             runs a program the analysis has no model of
//	inert               known, and does nothing the other effects name
//	                    (creates a temporary file, starts a command detached)
//
// Every concern carries one effect. An allow rule approves a high
// concern only when the command its own words spell has that effect
// (see CommandRules): "chmod" has writes but not loosens-permissions,
// so it does not approve `chmod 777 x`; "chmod 777" does.
//
// An effect sets the least severity of the concern that carries it
// (Effect.Severity); the scope can raise it (rm -rf ~ deletes, and is
// critical).
type Effect string

const (
	EffectReads              Effect = "reads"
	EffectWrites             Effect = "writes"
	EffectDeletes            Effect = "deletes"
	EffectExecutes           Effect = "executes"
	EffectNetwork            Effect = "network"
	EffectExposesPort        Effect = "exposes-port"
	EffectRewritesRemote     Effect = "rewrites-remote"
	EffectDiscardsWork       Effect = "discards-work"
	EffectPrintsCredentials  Effect = "prints-credentials"
	EffectSystem             Effect = "system"
	EffectLoosensPermissions Effect = "loosens-permissions"
	EffectSendsData          Effect = "sends-data"
	EffectChangesRemote      Effect = "changes-remote"
	EffectHidden             Effect = "hidden"
	EffectInert              Effect = "inert"
	EffectRunsProject        Effect = "runs-project"
	EffectUnknown            Effect = "unknown"
)

// effectSeverity is the least severity of each effect.
var effectSeverity = map[Effect]Severity{
	EffectReads:              SeverityNone,
	EffectWrites:             SeverityMedium,
	EffectDeletes:            SeverityMedium,
	EffectExecutes:           SeverityMedium,
	EffectNetwork:            SeverityMedium,
	EffectExposesPort:        SeverityHigh,
	EffectRewritesRemote:     SeverityHigh,
	EffectDiscardsWork:       SeverityHigh,
	EffectPrintsCredentials:  SeverityHigh,
	EffectSystem:             SeverityHigh,
	EffectLoosensPermissions: SeverityHigh,
	EffectSendsData:          SeverityHigh,
	EffectChangesRemote:      SeverityHigh,
	EffectHidden:             SeverityNone,
	EffectInert:              SeverityNone,
	EffectRunsProject:        SeverityMedium,
	EffectUnknown:            SeverityMedium,
}

// effectAliases are other spellings rules may use.
var effectAliases = map[string]Effect{"force-push": EffectRewritesRemote}

// Severity is the least severity of a command with effect e.
func (e Effect) Severity() Severity { return effectSeverity[e] }

// ParseEffect returns the effect a rule names ("force-push" is
// rewrites-remote), or an error listing the vocabulary.
func ParseEffect(name string) (Effect, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if e, ok := effectAliases[n]; ok {
		return e, nil
	}
	if _, ok := effectSeverity[Effect(n)]; ok {
		return Effect(n), nil
	}
	var known []string
	for e := range effectSeverity {
		known = append(known, string(e))
	}
	slices.Sort(known)
	return "", fmt.Errorf("safety: unknown effect %q (want one of %s, or force-push)", name, strings.Join(known, ", "))
}

// effect records that c has effect e, with a concern whose severity is
// the effect's own.
func (c *call) effect(e Effect, noAuto bool, reason string) {
	c.concern(e, e.Severity(), noAuto, reason)
}

// bit numbers e for Command.effectSet (a switch, so that nothing is
// built when the package loads).
func (e Effect) bit() uint32 {
	switch e {
	case EffectReads:
		return 1 << 0
	case EffectWrites:
		return 1 << 1
	case EffectDeletes:
		return 1 << 2
	case EffectExecutes:
		return 1 << 3
	case EffectNetwork:
		return 1 << 4
	case EffectExposesPort:
		return 1 << 5
	case EffectRewritesRemote:
		return 1 << 6
	case EffectDiscardsWork:
		return 1 << 7
	case EffectPrintsCredentials:
		return 1 << 8
	case EffectSystem:
		return 1 << 9
	case EffectLoosensPermissions:
		return 1 << 10
	case EffectSendsData:
		return 1 << 11
	case EffectChangesRemote:
		return 1 << 12
	case EffectHidden:
		return 1 << 13
	case EffectInert:
		return 1 << 14
	case EffectRunsProject:
		return 1 << 15
	case EffectUnknown:
		return 1 << 16
	}
	panic("safety: effect outside the vocabulary: " + string(e))
}

// effectRec is one effect of one command, in the order found.
type effectRec struct {
	cmd int
	e   Effect
}

// addEffect lists effect e on command idx once. The lists are built in
// listEffects, from one array: a command per effect costs no allocation,
// which matters on lines of thousands of commands.
func (a *analyzer) addEffect(idx int, e Effect) {
	cmd := &a.res.Commands[idx]
	if bit := e.bit(); cmd.effectSet&bit == 0 {
		cmd.effectSet |= bit
		a.effects = append(a.effects, effectRec{idx, e})
	}
}

// listEffects fills each Command.Effects from the effects recorded.
func (a *analyzer) listEffects() {
	if len(a.effects) == 0 {
		return
	}
	all := make([]Effect, len(a.effects))
	off := 0
	for i := range a.res.Commands {
		c := &a.res.Commands[i]
		n := bits.OnesCount32(c.effectSet)
		c.Effects = all[off : off : off+n]
		off += n
	}
	for _, r := range a.effects {
		c := &a.res.Commands[r.cmd]
		c.Effects = append(c.Effects, r.e)
	}
}

// pathEffects lists the reads and writes of the paths each command names.
func (a *analyzer) pathEffects() {
	for _, p := range a.res.Paths {
		if p.Command < 0 || p.Command >= len(a.res.Commands) {
			continue
		}
		switch p.Op {
		case OpRead:
			a.addEffect(p.Command, EffectReads)
		case OpWrite:
			a.addEffect(p.Command, EffectWrites)
		}
	}
}

// highEffects returns the effects of command i that concerns rate high or
// above.
func (a CommandAnalysis) highEffects(i int) []Effect {
	var out []Effect
	for _, c := range a.Concerns {
		if c.Command == i && c.Effect != "" && c.Severity >= SeverityHigh && !slices.Contains(out, c.Effect) {
			out = append(out, c.Effect)
		}
	}
	return out
}
