// Package terminal implements run_terminal_command: shell commands for an
// agent, run so that nothing can hang the agent, flood its memory or
// outlive the command.
//
// A Shell serves one agent session. Each command runs as `bash -c` in a
// process group of its own, with stdin closed and a terminal that asks
// programs for plain output. The directory a command ends in and the
// variables it exports are reported back through an EXIT trap on a private
// file descriptor, so `cd` and `export` carry over to the next command as
// they would in a terminal, while a timeout or a cancellation still kills
// exactly one command's process group (SIGTERM, then SIGKILL). Nothing a
// command starts outlives it: every process carries a per-command marker in
// its environment and the process tree is recorded while the command runs,
// so background jobs, setsid daemons, double forks, nohup and disown are
// all killed as soon as the shell exits or times out, and Result.Leftover
// says when there were any. Git runs with safe.bareRepository=explicit, so
// a directory a command shaped like a repository (HEAD, config, objects/,
// refs/) cannot make a later git command there run its configured
// programs. The working directory never leaves the workspace: a command
// that cds out of it leaves the next one at the root.
//
// Output goes through an Output: ANSI and OSC escape sequences (VS Code's
// ]633; shell-integration marks included) are stripped as bytes arrive,
// carriage-return progress bars collapse to their last state, and only the
// first 15 and last 85 lines are kept, with a "[N lines truncated]" marker
// and exact counts, so memory stays bounded however much a command prints
// (a command printing 1 GiB peaks below 30 MiB of resident memory, as the
// package's tests measure).
//
// Config.Sandbox is the seam for safety.Sandbox.Wrap (Landlock); package
// builtin connects it.
package terminal
