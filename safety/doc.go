// Package safety judges what an agent is about to do: shell commands by
// their parsed syntax, files by their sensitivity, paths by workspace
// confinement, and all of it together by a Policy that answers allow,
// confirm or deny with reasons. It never asks a human itself; it tells the
// caller when one must be asked.
//
// # Commands
//
// AnalyzeCommand parses a command line with a real shell parser and lists
// every simple command that can run, with a Severity (none < medium < high
// < critical) and the files it reads and writes. CommandRules decide which
// commands run without asking: deny, then ask, then allow, all-or-nothing
// over the sub-commands, and never for anything critical. A rule covers a
// command only with options known to be harmless for it (typed option
// tables say which options take values and whether a value is a file
// read or written, a program, code or configuration), and environment
// variables are judged by an allow-list, because an export persists into
// every later command of a terminal session.
//
// Each command also lists its effects in a closed vocabulary (Effect:
// reads, writes, deletes, executes, network, exposes-port,
// rewrites-remote, discards-work, prints-credentials, system), and an
// effect sets the least severity of the concern that carries it. Options
// are read the way the command's parser reads them before anything is
// judged: an abbreviated long option (`git reset --har`, `tar
// --to-comm=…`) is the option it abbreviates. Rules meet effects: a deny
// rule "git push --force" denies every spelling of a force push, an allow
// rule approves only the high effects its own words have, and
// "effect:NAME" names an effect in any rule.
//
// # The workspace
//
// A Workspace confines file access to one directory tree:
//
//	ws, err := safety.OpenWorkspace("/home/me/project")
//	…
//	pc := ws.Check("src/../.env", safety.OpWrite)
//	// pc.Decision == safety.Confirm, pc.Rel == ".env", pc.Sensitive
//
// Check validates the spelling (no NUL, control, bidi or invisible
// characters, no ~user, no over-long names), expands "~/" and file://,
// follows symlinks one component at a time as the kernel would, and denies
// whatever ends outside the root — also when the root itself was opened
// through a symlink. A working directory (OpChdir) must be an existing
// directory inside. Writes to sensitive files and to files with several
// hard links, and reads of secrets, are Confirm.
//
// The I/O methods (Open, ReadFile, WriteFile, Rename, …) check first and
// then act through an os.Root on the workspace, so a path swapped for a
// symlink after the check still cannot reach outside. WriteFile is atomic
// (temporary file in the same directory, fsync, rename) and re-validates at
// write time against the directory it holds open.
//
// A multi-root workspace, as editors have, adds further named roots with
// WithFolder: "lib/util.go" then names util.go in the folder lib, and the
// rest of the path is confined to that one root, so neither ".." nor a
// symlink leads from one root into another. FS shows the folders as
// directories of their names.
//
// # Sensitivity
//
// Some files need a human's approval even inside the workspace: secrets
// (.env*, keys, credential files), whose content should not be sent to a
// model unasked, and files that run code or steer tools later (.git,
// editor and agent configuration, shell start-up files, CI pipelines).
// The floor goes by role as well as name: the directory .git/config names
// in core.hooksPath is code, a committed template (.env.example) or a
// public key (*.pub) is readable, and a file whose hard links are not all
// in the workspace asks to be read. A file tool can also ask by content:
// SecretInContent finds private keys and tokens in the first 64 KB, and
// Policy.AssessRead applies it. BuiltinSensitivityRules lists the floor. Projects add rules with
// NewSensitivity: doublestar globs, matched case-insensitively, the last
// matching rule winning; no rule can loosen the floor. The editor-agent
// `sensitiveFilePatterns` setting, whose boolean means the opposite ("true" =
// auto-approve), is read by ParseAutoApprovePatterns.
//
// # Policy
//
// Policy.Assess combines all of the above for one action — a command in a
// working directory, or a file tool's accesses — into Allow, Confirm or
// Deny (risk levels "none", "confirm" and "deny" on the wire) with the
// deciding reasons first.
// `cat .env` needs approval just like reading .env with a file tool. Git
// commands that would run in a directory git takes for a repository other
// than the workspace's own (a nested .git, or HEAD, objects/ and refs/
// planted by an earlier write) need approval too, since that repository's
// configuration runs programs. A headless policy denies whatever would
// need confirmation.
//
// # Sandbox
//
// Static analysis cannot see what a script will do. Sandbox confines
// executed commands with Linux Landlock: reads anywhere, writes only under
// the workspace and chosen directories, optionally no network, no
// connections to Unix sockets elsewhere. Sandbox.Wrap rewrites an
// *exec.Cmd to start through a helper, the host's own executable, which
// confines itself and execs the command; Sandbox.Missing says what the
// running kernel cannot enforce.
//
// # Logging
//
// Security decisions are logged through log/slog when a logger is given
// (WithLogger, Policy.Logger, CommandRules.Logger): denials and
// confirmations at Info or Warn, with their reasons.
package safety
