package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/edit"
	"github.com/tetherdev/tether/internal/faultpoint"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// fileReader is what the file-edit handler needs of *safety.Workspace.
type fileReader interface {
	ReadFile(path string) ([]byte, error)
}

// changeSet is the run's checkpoint; *checkpoint.Checkpoint implements
// it. Snapshot takes a file's pre-image before the tool touches it,
// Record notes the tool's work afterwards, so Undo restores the
// pre-image and Diff reports the net change.
type changeSet interface {
	Snapshot(ctx context.Context, name string) error
	SnapshotFor(ctx context.Context, call checkpoint.Call, name string) error
	Record(ctx context.Context, call checkpoint.Call, name string) error
	UndoFile(ctx context.Context, name string, opts checkpoint.UndoOptions) (checkpoint.UndoReport, error)
	KeepFile(ctx context.Context, name string) error
	Diff(ctx context.Context) (checkpoint.Diff, error)
	ID() string
}

// fileEditHandler owns every call whose tool declares file writes:
// confinement, sensitivity, approval of the exact bytes the tool declared
// (the diff shown is the diff written), the checkpoint snapshot before the
// tool runs, and +N −N stats after. The tool then writes exactly the
// approved bytes (it refuses if the file changed since the preview),
// atomically through the confined workspace, so a cancelled or failed
// call leaves the old file or the new one, never a mix. In staging mode
// content changes are only staged, each under a token.
type fileEditHandler struct {
	assess    func(ctx context.Context, a safety.Action) safety.Assessment // safety.Policy.Assess
	files     fileReader
	changes   func(ctx context.Context) (changeSet, error) // begins the run's checkpoint on first use
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	execute   func(ctx context.Context, c tools.Call) tools.Result
	stager    *approval.Stager // staging mode when set
	logger    *slog.Logger
}

// target is one path a call changes, as checked.
type target struct {
	pc     safety.PathCheck
	before []byte
	exists bool
	snap   bool // snapshotted in the checkpoint
	// uncovered says why a directory the call changes is not in the
	// checkpoint (too many files); the result tells the model.
	uncovered string
}

func (h *fileEditHandler) handle(ctx context.Context, c *ToolCall) outcome {
	e := c.Effects
	paths := make([]string, len(e.Writes))
	ops := make([]safety.PathOp, len(e.Writes))
	for i, p := range e.Writes {
		paths[i] = inDir(e.Dir, p)
		ops[i] = safety.PathOp{Path: paths[i], Op: safety.OpWrite}
	}
	as := h.assess(ctx, safety.Action{Tool: c.Tool, Paths: ops})
	// Staging writes nothing, so a confirm-level change is staged for the
	// host to review whatever Config.Policy would answer; a denied one
	// is refused like any other.
	staging := h.stager != nil && stageable(e)
	if as.Decision == safety.Deny || len(as.Paths) != len(paths) {
		h.logger.Info("agent: file edit refused", "tool", c.Tool, "paths", paths, "reason", as.Reason())
		return outcome{Text: fmt.Sprintf("Not changed: %s. Only files inside the workspace can be changed.", as.Reason()), Status: event.StatusDenied, Detail: as.Reason(), Path: paths[0]}
	}
	if h.stager != nil && !staging && !e.CreatesOnly {
		// Staging promises that nothing is written before a token is
		// applied, and a token holds one file's new content: a move or a
		// removal cannot be staged, so it is refused rather than run.
		h.logger.Info("agent: change refused in staging mode", "tool", c.Tool, "paths", paths)
		return outcome{Text: fmt.Sprintf("Not changed: in staging mode only new file contents can be staged, and %s would move or remove files (%s). "+
			"Stage the new file's whole content instead and tell the user which file to remove, or ask the user to make this change.", c.Tool, strings.Join(paths, " → ")),
			Status: event.StatusDenied, Detail: "cannot be staged", Path: paths[0]}
	}
	ts := make([]target, len(paths))
	decision, sensitive, reasons := as.Decision, false, as.Reasons
	for i, pc := range as.Paths {
		ts[i].pc = pc
		sensitive = sensitive || pc.Sensitive || pc.Secret
		b, err := h.files.ReadFile(pc.Rel)
		ts[i].before, ts[i].exists = b, err == nil
	}
	primary := &ts[0]
	for _, ch := range e.Changes {
		// Every byte shown must belong to a path that was judged.
		if findTarget(ts, e.Dir, ch.Path) == nil {
			return failed(event.StatusError, fmt.Sprintf("Not changed: %s declares a change to %s, which is not among the paths it writes; this is a bug in the tool.", c.Tool, ch.Path))
		}
	}
	if staging {
		return h.stage(ctx, c, ts)
	}

	req := approval.Request{Kind: approval.KindFileEdit, ToolName: c.Tool, CallID: c.ID, Path: primary.pc.Resolved,
		Decision: decision, Reasons: reasons}
	if sensitive {
		req.Severity = safety.SeverityHigh
	}
	// A person deciding about a sensitive file sees the exact diff of the
	// bytes the tool declared, and the tool writes those bytes or none.
	if decision == safety.Confirm {
		var st edit.Stats
		req.Diff, st = changesDiff(e.Changes)
		req.Added, req.Removed = st.Added, st.Removed
		if req.Diff == "" {
			req.Summary = fmt.Sprintf("%s %s", c.Tool, strings.Join(paths, " → "))
		}
	}
	approved, err := h.authorize(ctx, req)
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason, Path: primary.pc.Rel, Added: req.Added, Removed: req.Removed}
		}
		return outcome{Text: "Not changed: " + err.Error(), Status: errorStatus(ctx, err), Detail: err.Error(), Path: primary.pc.Rel}
	}

	cs, err := h.changes(ctx)
	if err != nil {
		return outcome{Text: "Not changed: cannot open a checkpoint to make the change undoable: " + err.Error(), Status: event.StatusError, Detail: err.Error(), Path: primary.pc.Rel}
	}
	// A directory is snapshotted through the files under it, and one the
	// call creates is recorded so that undo removes it again.
	for i := range ts {
		if o, ok := h.snapshot(ctx, cs, checkpoint.Call{ID: c.ID, Tool: c.Tool}, &ts[i]); !ok {
			// Not run: the paths already taken are recorded unchanged,
			// which ends their in-flight marks.
			for _, t := range ts[:i] {
				if t.snap {
					cs.Record(context.WithoutCancel(ctx), checkpoint.Call{ID: c.ID, Tool: c.Tool}, t.pc.Rel)
				}
			}
			return o
		}
	}

	faultpoint.Reached(faultpoint.ChangeLogged)
	res := h.execute(tools.WithApproved(ctx, e), tools.Call{ID: c.ID, Name: c.Tool, Arguments: c.Args})
	faultpoint.Reached(faultpoint.ChangeApplied)
	o := fromToolResult(res)
	o.Path = primary.pc.Rel
	o.AutoApproved = decision == safety.Confirm && approved.By() != approval.ByUser
	call := checkpoint.Call{ID: c.ID, Tool: c.Tool}
	if res.IsError {
		// A failed write leaves the file as it was (writes are atomic),
		// but whatever the tool did is recorded all the same, which also
		// ends the call's in-flight marks.
		for _, t := range ts {
			if t.snap {
				if err := cs.Record(context.WithoutCancel(ctx), call, t.pc.Rel); err != nil {
					h.logger.Warn("agent: a failed call's paths not recorded; the checkpoint will take them from the disk", "path", t.pc.Rel, "err", err)
				}
			}
		}
		if ctx.Err() != nil {
			o.Status = event.StatusSkipped
		}
		return o
	}
	partial := slices.ContainsFunc(ts, func(t target) bool { return t.uncovered != "" })
	for i := range ts {
		if !ts[i].snap {
			continue
		}
		if partial {
			// One end of the change is not in the checkpoint (a directory
			// too large): undoing the other end alone would take the moved
			// files for new ones and delete them, so neither is undone.
			releaseFromUndo(ctx, cs, ts[i].pc.Rel, h.logger)
			continue
		}
		err := cs.Record(context.WithoutCancel(ctx), call, ts[i].pc.Rel)
		if err == nil {
			continue
		}
		// Not recorded, so not undoable: released, or undo would report
		// the path as someone else's change.
		releaseFromUndo(ctx, cs, ts[i].pc.Rel, h.logger)
		if !errors.Is(err, checkpoint.ErrNotRegular) { // a file that became a directory is expected
			h.logger.Warn("agent: change not recorded in the checkpoint", "path", ts[i].pc.Rel, "err", err)
			o.Text += "\n[warning: this change is not recorded in the checkpoint and cannot be undone from it]"
		}
	}
	for _, t := range ts {
		if t.uncovered != "" {
			o.Text += "\n[not covered by undo: " + t.uncovered + "]"
		}
	}
	if bad := h.unapproved(e, ts); bad != "" {
		// The tool wrote something other than what it declared (a host
		// tool that does not check tools.Approved): put the file back
		// rather than keep an unapproved change.
		_, uerr := cs.UndoFile(context.WithoutCancel(ctx), bad, checkpoint.UndoOptions{})
		h.logger.Warn("agent: written content differs from the declared change; reverted", "path", bad, "undo_err", uerr)
		return outcome{Text: fmt.Sprintf("Not changed: %s wrote something other than the change it declared to %s, so the file was restored. Read the file and try again.", c.Tool, bad),
			Status: event.StatusError, Detail: "differs from the declared change", Path: primary.pc.Rel}
	}
	after, aerr := h.files.ReadFile(primary.pc.Rel)
	if o.Added == 0 && o.Removed == 0 && aerr == nil {
		st := edit.Count(primary.before, after)
		o.Added, o.Removed = st.Added, st.Removed
	}
	switch {
	case primary.exists && aerr == nil && bytes.Equal(primary.before, after) && len(ts) == 1:
		o.Status, o.Detail = event.StatusSkipped, "no changes"
	default:
		o.Wrote = true
		o.CheckpointID = cs.ID()
		if o.Detail == "" || strings.HasPrefix(o.Detail, "lines ") {
			o.Detail = fmt.Sprintf("+%d −%d", o.Added, o.Removed)
		}
	}
	return o
}

// unapproved returns the first target whose content on disk is not what
// the call declared, or "".
func (h *fileEditHandler) unapproved(e tools.Effects, ts []target) string {
	for _, ch := range e.Changes {
		t := findTarget(ts, e.Dir, ch.Path)
		got, err := h.files.ReadFile(t.pc.Rel)
		switch {
		case ch.Remove && err == nil:
			return t.pc.Rel
		case !ch.Remove && (err != nil || !bytes.Equal(got, ch.After)):
			return t.pc.Rel
		}
	}
	return ""
}

// findTarget returns the checked target a declared change is about, or
// nil. The change names its file as the tool wrote it: relative to the
// call's directory, or absolute.
func findTarget(ts []target, dir, p string) *target {
	p = inDir(dir, p)
	for i := range ts {
		t := &ts[i]
		if filepath.Clean(p) == filepath.Clean(t.pc.Resolved) || path.Clean(filepath.ToSlash(p)) == t.pc.Rel {
			return t
		}
	}
	return nil
}

// changesDiff is the unified diff of declared changes, file after file,
// and its total stats.
func changesDiff(changes []tools.FileChange) (string, edit.Stats) {
	var b strings.Builder
	var total edit.Stats
	for _, ch := range changes {
		var d edit.Diff
		if ch.Remove {
			d = edit.Unified("a/"+ch.Path, "/dev/null", ch.Before, nil, -1)
		} else {
			d = edit.FileDiff(ch.Path, ch.Before, ch.After, !ch.Existed, -1)
		}
		b.WriteString(d.Unified)
		total.Added += d.Stats.Added
		total.Removed += d.Stats.Removed
	}
	return b.String(), total
}

// inDir resolves a declared path against the call's directory.
func inDir(dir, p string) string {
	if dir == "" || p == "" || filepath.IsAbs(p) || p[0] == '~' {
		return p
	}
	return filepath.Join(dir, p)
}

// snapshot takes a target's pre-image. A directory (a renamed or a
// created folder) has no content to snapshot and goes ahead
// without; a path inside .git is refused.
func (h *fileEditHandler) snapshot(ctx context.Context, cs changeSet, call checkpoint.Call, t *target) (outcome, bool) {
	canonical := call.Tool
	// Taken for the call: if the process dies between the write and
	// Record, the checkpoint takes what the disk holds as the call's work
	// (see checkpoint.SnapshotFor), so the change stays undoable.
	err := cs.SnapshotFor(ctx, call, t.pc.Rel)
	switch {
	case err == nil:
		t.snap = true
		return outcome{}, true
	case errors.Is(err, checkpoint.ErrProtectedPath):
		return outcome{Text: fmt.Sprintf("Not changed: %s is inside .git, which the agent never writes.", t.pc.Rel), Status: event.StatusDenied, Detail: err.Error(), Path: t.pc.Rel}, false
	case errors.Is(err, checkpoint.ErrTooLarge) && !t.exists:
		// A directory too large to snapshot file by file (a file that
		// exists would have been read): the call may still move it, as
		// before checkpoints covered directories, but undo will not.
		h.logger.Info("agent: directory too large to snapshot", "tool", canonical, "path", t.pc.Rel, "err", err)
		t.uncovered = t.pc.Rel + " (too many files to snapshot)"
		return outcome{}, true
	case errors.Is(err, checkpoint.ErrNotRegular):
		h.logger.Info("agent: not snapshotting a non-regular path", "tool", canonical, "path", t.pc.Rel)
		return outcome{}, true
	}
	if ctx.Err() != nil {
		return failed(event.StatusSkipped, "Not changed: the run was cancelled."), false
	}
	return outcome{Text: fmt.Sprintf("Not changed: cannot snapshot %s, so the change could not be undone: %v", t.pc.Rel, err), Status: event.StatusError, Detail: err.Error(), Path: t.pc.Rel}, false
}

// releaseFromUndo takes a path whose change the checkpoint could not
// record (a file that became a directory, a directory too large) out of
// undo, with everything recorded beneath it: undo then neither reports it
// as someone else's change nor restores half of it.
func releaseFromUndo(ctx context.Context, cs changeSet, rel string, logger *slog.Logger) {
	if err := cs.KeepFile(context.WithoutCancel(ctx), rel); err != nil {
		logger.Warn("agent: cannot release a path from the checkpoint", "path", rel, "err", err)
	}
}
