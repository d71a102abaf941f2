package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// commandKeys are the argument names models use for the command line.
var commandKeys = []string{"command", "cmd", "script", "command_line", "commandLine"}

// terminalHandler owns run_terminal_command: safety analysis, the
// policy, approval of the exact bytes, then the run. What runs is the
// approved command, never the string the model sent, so nothing can
// change between the approval card and the shell.
type terminalHandler struct {
	// assess is safety.Policy.AssessCommand: severity, command rules, the
	// working directory, and the files the command names (`cat .env`
	// needs the same approval as reading .env with read_file).
	assess    func(ctx context.Context, command, dir string) safety.Assessment
	check     func(p string, op safety.Op) safety.PathCheck // nil without a workspace
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	execute   func(ctx context.Context, c tools.Call) tools.Result
	// changes, when set, is the run's checkpoint: files the analysis says
	// the command writes (redirects, sed -i, cp, mv, touch, rm…) are
	// snapshotted before it runs and recorded after, so undo covers them.
	changes func(ctx context.Context) (changeSet, error)
	read    func(path string) ([]byte, error)
	// commandDir, when set, is where the next command starts
	// (terminal.Shell.Cwd), for commands that name no cwd.
	commandDir func() string
	// readOnlyGit restricts commands to read-only git (review mode), which
	// then run without approval.
	readOnlyGit bool
	logger      *slog.Logger
}

func (h *terminalHandler) handle(ctx context.Context, c call, canonical string) outcome {
	args, err := argObject(c.Args)
	if err != nil {
		return failed(StatusError, err.Error())
	}
	cmd := stringArg(args, commandKeys...)
	if cmd == "" {
		return failed(StatusError, `run_terminal_command needs a "command": the shell command line to run.`)
	}
	cwd := stringArg(args, "cwd", "dir", "directory", "working_directory", "workdir")
	if cwd == "" && h.commandDir != nil {
		// The shell keeps `cd` between commands: judge the paths this
		// command names where it will really run.
		cwd = h.commandDir()
	}
	if h.readOnlyGit {
		if why := readOnlyGitProblem(cmd); why != "" {
			h.logger.Info("agent: command refused in read-only mode", "command", cmd, "reason", why)
			return failed(StatusDenied, "Not run: "+why+". In this mode only read-only git commands (git status, log, diff, show, blame, grep, ls-files…) may run.")
		}
		if a := h.assess(ctx, cmd, cwd); a.Decision == safety.Deny {
			return failed(StatusDenied, "Not run: "+a.Reason())
		}
		return h.run(ctx, c, canonical, args, cmd, true)
	}

	a := h.assess(ctx, cmd, cwd)
	req := approval.Request{Kind: approval.KindCommand, ToolName: canonical, CallID: c.ID, Command: cmd,
		Decision: a.Decision, Severity: a.Severity, Reasons: a.Reasons}
	approved, err := h.authorize(ctx, req)
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason}
		}
		return failed(errorStatus(ctx, err), "Not run: "+err.Error())
	}
	var snaps []snapped
	if a.Command != nil {
		snaps = h.snapshot(ctx, a.Command.Analysis, cwd)
	}
	o := h.run(ctx, c, canonical, args, approved.Command(), false)
	o.AutoApproved = approved.By() != "user"
	h.record(ctx, c, canonical, snaps, &o)
	return o
}

// snapped is a file a command may write, with its content before.
type snapped struct {
	rel    string
	before []byte
	exists bool
	cs     changeSet
}

// snapshot takes the pre-images of the files the analysis says the
// command writes. It is a floor, not a proof: a program may write files
// no argument names, and those are not covered.
func (h *terminalHandler) snapshot(ctx context.Context, a safety.CommandAnalysis, cwd string) []snapped {
	if h.changes == nil || h.check == nil {
		return nil
	}
	var out []snapped
	for _, p := range a.Paths {
		if p.Op != safety.OpWrite {
			continue
		}
		name := p.Path
		if cwd != "" && !filepath.IsAbs(name) && name != "" && name[0] != '~' {
			name = filepath.Join(cwd, name)
		}
		pc := h.check(name, safety.OpWrite)
		if pc.Decision == safety.Deny || pc.Rel == "" || pc.Rel == "." {
			continue
		}
		cs, err := h.changes(ctx)
		if err != nil {
			h.logger.Warn("agent: no checkpoint for a command's writes", "err", err)
			return out
		}
		before, rerr := h.read(pc.Rel)
		if err := cs.Snapshot(ctx, pc.Rel); err != nil {
			continue // a directory, .git, or too large: not undoable, but the command may still run
		}
		out = append(out, snapped{rel: pc.Rel, before: before, exists: rerr == nil, cs: cs})
	}
	return out
}

// record notes what the command changed in the snapshotted files.
func (h *terminalHandler) record(ctx context.Context, c call, canonical string, snaps []snapped, o *outcome) {
	for _, s := range snaps {
		after, err := h.read(s.rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) { // became a directory (mkdir)
			releaseNonFile(ctx, s.cs, s.rel, h.logger)
			continue
		}
		if (err == nil) == s.exists && bytes.Equal(after, s.before) {
			continue
		}
		if err := s.cs.Record(context.WithoutCancel(ctx), checkpoint.Call{ID: c.ID, Tool: canonical}, s.rel); err != nil {
			h.logger.Warn("agent: command's change not recorded in the checkpoint", "path", s.rel, "err", err)
			continue
		}
		st := lineStats(s.rel, s.before, after, !s.exists)
		o.Added += st.Added
		o.Removed += st.Removed
		o.Wrote = true
		o.CheckpointID = s.cs.ID()
	}
}

// run executes exactly cmd through the registry's terminal tool.
func (h *terminalHandler) run(ctx context.Context, c call, canonical string, args map[string]json.RawMessage, cmd string, autoApproved bool) outcome {
	for _, k := range commandKeys {
		delete(args, k)
	}
	args["command"], _ = json.Marshal(cmd)
	raw, err := json.Marshal(args)
	if err != nil {
		return failed(StatusError, err.Error())
	}
	o := fromToolResult(h.execute(ctx, tools.Call{ID: c.ID, Name: canonical, Arguments: raw}))
	o.AutoApproved = autoApproved
	if ctx.Err() != nil && o.Status == StatusError {
		o.Detail = "cancelled: the command and its child processes were killed"
	}
	return o
}

// argObject decodes call arguments into their top-level members.
func argObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("the arguments are not a JSON object: send them as {\"name\": value, …}")
	}
	return m, nil
}

// stringArg returns the first of keys that holds a non-empty string.
func stringArg(m map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if v, ok := m[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
