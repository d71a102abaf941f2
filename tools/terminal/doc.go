// Package terminal implements run_terminal_command: shell commands for an
// agent, run so that nothing can hang the agent, flood its memory or
// outlive the command.
//
// A Shell serves one agent session. Each command runs as `bash -c` in a
// process group of its own, with stdin closed and a terminal that asks
// programs for plain output. The directory a command ends in and the
// variables it exports carry over to the next command as they would in a
// terminal, but the report is read from the kernel, not from the script:
// an EXIT trap execs a program that stops itself in the shell's place, and
// the terminal reads /proc/PID/cwd and /proc/PID/environ of that stopped
// process; no descriptor a script could write to is involved. What the
// report holds is a diff, judged variable by variable as an explicit
// `export NAME=value` would be (safety.AnalyzeCommand): harmless ones are
// carried, the rest dropped and named in the tool result, however the
// command set them (export, set -a, ${v:=w}, read, for, declare -x).
//
// The environment is minimal and rebuilt for every command: the host's
// allow-listed variables (home, PATH, locale, toolchain locations) and
// Config.PassEnv, what earlier commands were allowed to carry, then the
// guards — PATH as the host had it, plain output, git's
// safe.bareRepository, the process marker, Config.Env — with BASH_ENV,
// ENV, LD_*, GIT_* and the like removed. Unsetting or changing a guard
// lasts one command. Values of host variables that look like secrets are
// redacted from output (Redactor).
//
// A timeout or a cancellation kills exactly one command's process group
// (SIGTERM, then SIGKILL). Nothing a command starts outlives it: every
// process carries a per-command marker in its environment and the process
// tree is recorded while the command runs, so background jobs, setsid
// daemons, double forks, nohup and disown are all killed as soon as the
// shell exits or times out, and Result.Leftover says when there were any.
// Wherever this process may make cgroup v2 children, each command also
// starts in a cgroup of its own (safety.CommandCgroup), killed with
// cgroup.kill when the command ends: that holds whatever a process does
// to its tree, session, environment or helper (Shell.CgroupGuard says
// whether it is in force, Config.NoCgroup turns it off). With
// Config.Domain (safety.KillDomain) each command also has a kill domain
// that dies with the agent: a confined command in a cgroup needs nothing
// more (it cannot leave its cgroup, and the cgroup watchdog ends it if
// the agent dies), so it starts with no helper process; any other runs
// under a helper that is its child subreaper, dies with the agent and
// kills what is left below it before the command is reported done.
// Without a cgroup, that helper is what holds a process that clears its
// environment and detaches at once, which the /proc tracking alone can
// miss. The marker names the workspace and the agent: New ends, and
// Shell.Recovered reports, processes an earlier run in the same
// workspace left when its agent died.
// The working directory never leaves the workspace: a command that cds out
// of it leaves the next one at the root.
//
// Output goes through an Output: ANSI and OSC escape sequences (VS Code's
// ]633; shell-integration marks included) are stripped as bytes arrive,
// carriage-return progress bars collapse to their last state, and only the
// first 15 and last 85 lines are kept, with a "[N lines truncated]" marker
// and exact counts, so memory stays bounded however much a command prints
// (a command printing 1 GiB peaks below 30 MiB of resident memory, as the
// package's tests measure).
//
// Config.Sandbox is the seam for safety.Sandbox.Wrap (Landlock),
// Config.Contain for a kill-domain helper of the host's own, and
// Config.Domain for safety.KillDomain; package builtin connects them.
package terminal
