package agent

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/edit"
	"github.com/tetherdev/tether/internal/faultpoint"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// terminalHandler owns calls that declare a command: safety analysis in
// the directory the command really starts in, the policy, approval of the
// exact bytes, snapshots of the files the analysis says it writes, then
// the run. What runs is the prepared call whose declared command was
// approved, never the string the model sent.
type terminalHandler struct {
	// assess is safety.Policy.AssessCommand: severity, command rules, the
	// working directory, and the files the command names (`cat .env`
	// needs the same approval as reading .env with the file-reading tool).
	assess    func(ctx context.Context, command, dir string) safety.Assessment
	check     func(p string, op safety.Op) safety.PathCheck // nil without a workspace
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	execute   func(ctx context.Context, c tools.Call) tools.Result
	// changes, when set, is the run's checkpoint: files the analysis says
	// the command writes (redirects, sed -i, cp, mv, touch, rm…) are
	// snapshotted before it runs and recorded after, so undo covers them.
	changes func(ctx context.Context) (changeSet, error)
	files   interface {
		ReadFile(path string) ([]byte, error)
		Lstat(path string) (fs.FileInfo, error)
	}
	// commandDir, when set, is where the next command starts, for tools
	// that declare a command but no directory.
	commandDir func() string
	// readOnlyGit restricts commands to read-only git (review mode), which
	// then run without approval.
	readOnlyGit bool
	logger      *slog.Logger
}

func (h *terminalHandler) handle(ctx context.Context, c *ToolCall) outcome {
	cmd, cwd := c.Effects.Command, c.Effects.Dir
	if cwd == "" && h.commandDir != nil {
		cwd = h.commandDir()
	}
	if h.readOnlyGit {
		if why := readOnlyGitProblem(cmd); why != "" {
			h.logger.Info("agent: command refused in read-only mode", "command", cmd, "reason", why)
			return failed(event.StatusDenied, "Not run: "+why+". In this mode only read-only git commands (git status, log, diff, show, blame, grep, ls-files…) may run.")
		}
		if a := h.assess(ctx, cmd, cwd); a.Decision == safety.Deny {
			return failed(event.StatusDenied, "Not run: "+a.Reason())
		}
		return h.run(ctx, c, tools.Effects{}, true)
	}

	a := h.assess(ctx, cmd, cwd)
	req := approval.Request{Kind: approval.KindCommand, ToolName: c.Tool, CallID: c.ID, Command: cmd,
		Decision: a.Decision, Severity: a.Severity, Reasons: a.Reasons}
	approved, err := h.authorize(ctx, req)
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason}
		}
		return failed(errorStatus(ctx, err), "Not run: "+err.Error())
	}
	if approved.Command() != cmd {
		// The gate hands back what it approved; anything else is a bug
		// that must not run.
		return failed(event.StatusError, "Not run: the approved command differs from the prepared one.")
	}
	faultpoint.Reached(faultpoint.CommandApproved)
	var snaps []snapped
	var uncovered []string
	if a.Command != nil {
		var refuse string
		snaps, uncovered, refuse = h.snapshot(ctx, c, a.Command.Analysis, cwd)
		if refuse != "" {
			// Nothing may change a file out of undo's reach: a command
			// whose pre-images cannot all be taken does not run.
			h.record(ctx, c, snaps, &outcome{}) // releases what was taken
			h.logger.Warn("agent: command refused: its writes could not be snapshotted", "command", cmd, "reason", refuse)
			return failed(event.StatusError, "Not run: "+refuse+". Nothing was changed.")
		}
	}
	faultpoint.Reached(faultpoint.CommandSnapshotted)
	o := h.run(ctx, c, c.Effects, false)
	faultpoint.Reached(faultpoint.CommandExited)
	o.AutoApproved = approved.By() != approval.ByUser
	h.record(ctx, c, snaps, &o)
	if len(uncovered) > 0 {
		// Said to the model (and so to the person reading along): undo
		// will not bring these back, whatever the command did to them.
		o.Text += "\n[not covered by undo: " + strings.Join(uncovered, "; ") + "]"
	}
	return o
}

// snapped is a path a command may write, as it was before: content and
// file info (nil when missing). A directory is covered by the checkpoint
// file by file.
type snapped struct {
	rel    string
	before []byte
	info   fs.FileInfo
	cs     changeSet
}

// unchanged reports a regular or missing path the command left exactly
// as it was: same existence, content and permission bits.
func (s snapped) unchanged(after []byte, info fs.FileInfo) bool {
	if s.info == nil || info == nil {
		return s.info == nil && info == nil
	}
	return s.info.Mode().IsRegular() && info.Mode().IsRegular() && s.info.Mode() == info.Mode() && bytes.Equal(after, s.before)
}

// snapshot takes the pre-images of the paths the command may write
// (command_writes.go): the analysis' write paths, every file under a named
// directory (rm -rf, mv, cp -r), a glob expanded the way the shell will
// expand it, the existing files a writing command names, and what its
// finds reach. Each is taken for the call, so a crash or a store failure
// before Record still leaves it in undo's reach. It is a floor, not a
// proof: a program may write files no argument names. refuse is set when
// a pre-image that is needed cannot be taken for a reason that is not
// the file's own (the store is full, a find reaches too much).
func (h *terminalHandler) snapshot(ctx context.Context, c *ToolCall, a safety.CommandAnalysis, cwd string) (out []snapped, uncovered []string, refuse string) {
	if h.changes == nil || h.check == nil {
		return nil, nil, ""
	}
	// Where a find starts or what a command names is looked up inside
	// the workspace; each file is then checked for writing itself.
	resolve := func(name string) (string, bool) {
		pc := h.check(name, safety.OpRead)
		return pc.Resolved, pc.Decision != safety.Deny && pc.Rel != "" && pc.Resolved != ""
	}
	targets, over, err := commandWriteTargets(a, cwd, resolve)
	if err != nil {
		return nil, nil, err.Error() + "; narrow it (-maxdepth, -name, a sub-directory) or run it in parts"
	}
	for _, name := range over {
		uncovered = append(uncovered, name+" (more files named than undo snapshots for one command)")
	}
	call := checkpoint.Call{ID: c.ID, Tool: c.Tool}
	seen := map[string]bool{}
	for _, t := range targets {
		if link := h.linkName(t.name); link != "" && !seen["link:"+link] {
			// The checkpoint holds what a link points to, never the link:
			// a command that removes or replaces it is not undone.
			seen["link:"+link] = true
			uncovered = append(uncovered, link+" (a symbolic link: undo restores what it points to, never the link itself)")
		}
		for _, pc := range h.expandGlob(t.name) {
			if pc.Decision == safety.Deny || pc.Rel == "" || pc.Rel == "." || seen[pc.Rel] {
				continue
			}
			before, info := h.state(pc.Rel)
			if t.named && (info == nil || !info.Mode().IsRegular()) {
				continue
			}
			seen[pc.Rel] = true
			cs, err := h.changes(ctx)
			if err != nil {
				return out, uncovered, "undo could not begin a checkpoint (" + err.Error() + ")"
			}
			if err := cs.SnapshotFor(ctx, call, pc.Rel); err != nil {
				if !inherentlyUncovered(err) {
					return out, uncovered, "undo could not save a copy of " + pc.Rel + " first (" + err.Error() + ")"
				}
				// .git, or too large: not undoable, but the command may
				// still run; the result says so.
				h.logger.Info("agent: a path the command writes is not undoable", "path", pc.Rel, "err", err)
				uncovered = append(uncovered, uncoveredReason(pc.Rel, err))
				continue
			}
			out = append(out, snapped{rel: pc.Rel, before: before, info: info, cs: cs})
		}
	}
	return out, uncovered, ""
}

// linkName returns the workspace-relative name of name when name (not a
// glob) is itself a symbolic link inside the workspace, else "".
func (h *terminalHandler) linkName(name string) string {
	if strings.ContainsAny(name, "*?[") || !filepath.IsAbs(name) {
		return ""
	}
	dir := h.check(filepath.Dir(name), safety.OpRead)
	if dir.Decision == safety.Deny || dir.Rel == "" || dir.Resolved == "" {
		return ""
	}
	fi, err := os.Lstat(filepath.Join(dir.Resolved, filepath.Base(name)))
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	return path.Join(dir.Rel, filepath.Base(name))
}

// inherentlyUncovered reports a snapshot refused for what the path is
// (inside .git, too large, not a file), not for a failure of the store.
func inherentlyUncovered(err error) bool {
	return errors.Is(err, checkpoint.ErrProtectedPath) || errors.Is(err, checkpoint.ErrTooLarge) ||
		errors.Is(err, checkpoint.ErrNotRegular) || errors.Is(err, checkpoint.ErrInvalidPath)
}

// uncoveredReason says in a few words why a path is not in the checkpoint.
func uncoveredReason(rel string, err error) string {
	switch {
	case errors.Is(err, checkpoint.ErrProtectedPath):
		return rel + " (inside .git, which checkpoints never hold)"
	case errors.Is(err, checkpoint.ErrTooLarge):
		return rel + " (too large to snapshot)"
	case errors.Is(err, checkpoint.ErrNotRegular):
		return rel + " (not a regular file)"
	}
	return rel + " (" + err.Error() + ")"
}

// expandGlob checks name and, when it is a glob, every workspace path it
// matches now, as the shell will expand it; a glob matching nothing is
// passed to the command literally, so it stands for itself.
func (h *terminalHandler) expandGlob(name string) []safety.PathCheck {
	pc := h.check(name, safety.OpWrite)
	if !strings.ContainsAny(name, "*?[") || pc.Resolved == "" {
		return []safety.PathCheck{pc}
	}
	m, err := filepath.Glob(pc.Resolved)
	if err != nil || len(m) == 0 {
		return []safety.PathCheck{pc}
	}
	dotted := strings.HasPrefix(filepath.Base(name), ".")
	var out []safety.PathCheck
	for _, p := range m {
		if strings.HasPrefix(filepath.Base(p), ".") && !dotted {
			continue // the shell's * does not match hidden files; filepath.Glob does
		}
		out = append(out, h.check(p, safety.OpWrite))
	}
	if len(out) == 0 {
		return []safety.PathCheck{pc}
	}
	return out
}

// record notes what the command changed in the snapshotted paths. Every
// snapshot is recorded, changed or not, which ends its in-flight mark.
func (h *terminalHandler) record(ctx context.Context, c *ToolCall, snaps []snapped, o *outcome) {
	for _, s := range snaps {
		after, info := h.state(s.rel)
		changed := !s.unchanged(after, info)
		err := s.cs.Record(context.WithoutCancel(ctx), checkpoint.Call{ID: c.ID, Tool: c.Tool}, s.rel)
		if inherentlyUncovered(err) {
			// A file became a directory, a directory grew too large: not
			// recorded, so released, and undo neither reports it as
			// someone else's change nor restores part of it.
			releaseFromUndo(ctx, s.cs, s.rel, h.logger)
			if !errors.Is(err, checkpoint.ErrNotRegular) {
				h.logger.Warn("agent: command's change not recorded in the checkpoint", "path", s.rel, "err", err)
				o.Text += "\n[not covered by undo: " + uncoveredReason(s.rel, err) + "]"
			}
			continue
		}
		if err != nil {
			// The pre-image is saved and the call's mark stays, so the
			// checkpoint takes what the disk holds as the command's work
			// at the next undo: still covered.
			h.logger.Warn("agent: command's change not recorded yet; undo will take it from the disk", "path", s.rel, "err", err)
		}
		if !changed {
			continue
		}
		if (s.info == nil || s.info.Mode().IsRegular()) && (info == nil || info.Mode().IsRegular()) {
			st := edit.Count(s.before, after)
			o.Added += st.Added
			o.Removed += st.Removed
		}
		o.Wrote = true
		o.CheckpointID = s.cs.ID()
	}
}

// state returns rel's content and file info (nil when it does not exist).
func (h *terminalHandler) state(rel string) ([]byte, fs.FileInfo) {
	info, err := h.files.Lstat(rel)
	if err != nil {
		return nil, nil
	}
	data, _ := h.files.ReadFile(rel) // nil for a directory
	return data, info
}

// run executes the prepared call, marked with the effects the gate
// approved (none for a read-only git command, which needs no approval).
func (h *terminalHandler) run(ctx context.Context, c *ToolCall, approved tools.Effects, autoApproved bool) outcome {
	if approved.Declared {
		ctx = tools.WithApproved(ctx, approved)
	}
	o := fromToolResult(h.execute(ctx, tools.Call{ID: c.ID, Name: c.Tool, Arguments: c.Args}))
	o.AutoApproved = autoApproved
	if ctx.Err() != nil && o.Status == event.StatusError {
		o.Detail = "cancelled: the command and its child processes were killed"
	}
	return o
}
