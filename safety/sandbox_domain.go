package safety

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"

	"github.com/tetherdev/tether/internal/sandboxhelper"
)

// KillDomain runs each command under a helper process that is its kill
// domain: the helper starts the command as its child, is the child
// subreaper of everything the command starts (a double fork, setsid,
// nohup, a daemon that cleared its environment all stay below it), and
// before it exits — which is when the caller's Wait returns — it kills
// and reaps every process left below it. It is tied to the agent: it gets
// SIGTERM when the process that started it dies (PR_SET_PDEATHSIG) and
// then ends the command and everything below it the same way. A SIGTERM
// from the caller (a timeout that signals the process group) is handled
// alike, after giving the command up to a second to exit on its own.
//
// The helper is the host's own executable re-executed, as for Sandbox
// (see there: it works while the program initialises). With Sandbox set
// the command starts through a second, confining helper below the first,
// so the command is both confined and contained.
//
// # The report descriptor
//
// When the wrapped command has an ExtraFiles[0], the helper keeps it (as
// its descriptor 3) and closes it for the command: the command cannot
// write to it. If the command stops itself (SIGSTOP) the helper reads the
// stopped process's working directory and environment from /proc and
// kills it; as it exits it writes one report (KillDomainReport, read
// with its UnmarshalText) with those and the count of leftovers it
// killed. A shell
// can so hand its final state to the caller through a channel its script
// cannot reach.
//
// # Limits
//
// A process below the helper can kill the helper (same user) and then
// outlive the command. A CommandCgroup closes that: a host that also
// starts the wrapped command in one (the terminal does wherever
// CgroupAvailable) ends everything in it after the helper, whatever
// became of the helper. Missing names the cgroup when this process
// cannot make one, and then the helper is the guard.
//
// # Without a helper
//
// A helper costs a command the start of a Go runtime, a few milliseconds.
// A command that is both confined and in a CommandCgroup needs none: it
// cannot leave the cgroup (Landlock keeps /sys/fs/cgroup read-only to
// it), the cgroup ends all of it after the command, and the cgroup
// watchdog ends it if this process dies. Such a host starts it with
// Sandbox.Start instead of Wrap; the terminal does (terminal.Config's
// Domain). An unconfined command keeps the helper, which still holds it
// if it moves itself to another cgroup it may write to.
type KillDomain struct {
	// Sandbox, when set, confines commands too; its Helper and
	// HelperArgs are used.
	Sandbox *Sandbox
	// Helper and HelperArgs are as Sandbox's, for a domain without a
	// Sandbox.
	Helper     string
	HelperArgs []string
	// Logger receives what is missing; nil means no logging.
	Logger *slog.Logger
}

// KillDomainReport is what the helper writes on the report descriptor as
// it exits: when the command stopped itself, its working directory and
// its environment as /proc/PID/environ held it (NUL-separated); and how
// many processes it found left below it and killed.
type KillDomainReport struct {
	Dir      string
	Environ  []byte
	Leftover int
}

// UnmarshalText reads a report as the helper wrote it on the report
// descriptor.
func (r *KillDomainReport) UnmarshalText(b []byte) error {
	rep, err := sandboxhelper.DecodeReport(b)
	if err != nil {
		return fmt.Errorf("safety: kill-domain report: %w", err)
	}
	*r = KillDomainReport(rep)
	return nil
}

// Wrap rewrites cmd, which must not have been started, to run under a
// kill-domain helper (and confined, with Sandbox). Arguments, environment,
// directory and standard I/O are kept.
func (d *KillDomain) Wrap(cmd *exec.Cmd) error {
	if len(cmd.ExtraFiles) > 1 {
		return errors.New("safety: KillDomain.Wrap: at most one extra file (the report descriptor)")
	}
	if d.Sandbox != nil {
		if err := d.Sandbox.Wrap(cmd); err != nil {
			return err
		}
		if !hasRequest(cmd.Env) {
			return nil // BestEffort off Linux: runs unwrapped
		}
		return markDomain(cmd, len(cmd.ExtraFiles) == 1)
	}
	sb := &Sandbox{Helper: d.Helper, HelperArgs: d.HelperArgs, Logger: d.Logger}
	return sb.wrapUnconfined(cmd, len(cmd.ExtraFiles) == 1)
}

// markDomain turns the sandbox request in cmd's environment into a
// kill-domain request.
func markDomain(cmd *exec.Cmd, report bool) error {
	for i, kv := range cmd.Env {
		raw, ok := strings.CutPrefix(kv, sandboxEnv+"=")
		if !ok {
			continue
		}
		req, err := sandboxhelper.DecodeRequest(raw)
		if err != nil {
			return err
		}
		req.Domain, req.Report = true, report
		cmd.Env[i] = sandboxEnv + "=" + req.Encode()
		setDeathSignal(cmd)
		return nil
	}
	return errors.New("safety: KillDomain.Wrap: the sandbox left no helper request")
}

// wrapUnconfined wraps cmd for the helper without confinement.
func (s *Sandbox) wrapUnconfined(cmd *exec.Cmd, report bool) error {
	if cmd.Process != nil {
		return errors.New("safety: KillDomain.Wrap: command already started")
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	if cmd.Path == "" {
		return errors.New("safety: KillDomain.Wrap: command has no Path; build it with exec.Command")
	}
	if err := domainSupported(); err != nil {
		return err
	}
	if err := s.throughHelper(cmd, sandboxhelper.Request{Unconfined: true, Domain: true, Report: report}, "KillDomain.Wrap"); err != nil {
		return err
	}
	setDeathSignal(cmd)
	return nil
}

// Missing lists, in words, the protections of a kill domain this system
// lacks (and, with Sandbox, what the sandbox lacks). Empty means none:
// commands can also be placed in a CommandCgroup, which is then the guard
// in force; otherwise the first entry says the helper's subreaper is.
func (d *KillDomain) Missing() []string {
	out := domainMissing()
	if d.Sandbox != nil {
		out = append(out, d.Sandbox.Missing()...)
	}
	return out
}

// errDomain wraps what the helper cannot do on this system.
func errDomain(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSandboxUnavailable}, args...)...)
}
