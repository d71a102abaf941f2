package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
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
	Record(ctx context.Context, call checkpoint.Call, name string) error
	UndoFile(ctx context.Context, name string, opts checkpoint.UndoOptions) (checkpoint.UndoReport, error)
	KeepFile(ctx context.Context, name string) error
	Diff(ctx context.Context) (checkpoint.Diff, error)
	ID() string
}

// fileEditHandler owns every tool call that changes files (write_file,
// create_file, edit_file, modify_lines, patch_file, rename_file,
// create_folder, and any other non-read-only tool that takes a path):
// confinement, sensitivity, approval with a diff preview where needed,
// the checkpoint snapshot before the tool runs, and +N −N stats after.
// The tools themselves write atomically through the confined workspace,
// so a cancelled or failed call leaves the old file or the new one, never
// a mix.
type fileEditHandler struct {
	assess    func(ctx context.Context, a safety.Action) safety.Assessment // safety.Policy.Assess
	files     fileReader
	changes   func(ctx context.Context) (changeSet, error) // begins the run's checkpoint on first use
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	execute   func(ctx context.Context, c tools.Call) tools.Result
	planners  map[string]editPlanner // previews for approval diffs
	logger    *slog.Logger
}

// target is one path a call changes, as checked.
type target struct {
	pc     safety.PathCheck
	before []byte
	exists bool
	snap   bool // snapshotted in the checkpoint
}

func (h *fileEditHandler) handle(ctx context.Context, c call, canonical string) outcome {
	args, err := argObject(c.Args)
	if err != nil {
		return failed(StatusError, err.Error())
	}
	paths := editPaths(canonical, args)
	if len(paths) == 0 {
		return failed(StatusError, fmt.Sprintf(`%s needs a "path": the file to change, relative to the workspace root.`, canonical))
	}
	ops := make([]safety.PathOp, len(paths))
	for i, p := range paths {
		ops[i] = safety.PathOp{Path: p, Op: safety.OpWrite}
	}
	as := h.assess(ctx, safety.Action{Tool: canonical, Paths: ops})
	if as.Decision == safety.Deny || len(as.Paths) != len(paths) {
		h.logger.Info("agent: file edit refused", "tool", canonical, "paths", paths, "reason", as.Reason())
		return outcome{Text: fmt.Sprintf("Not changed: %s. Only files inside the workspace can be changed.", as.Reason()), Status: StatusDenied, Detail: as.Reason(), Path: paths[0]}
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

	req := approval.Request{Kind: approval.KindFileEdit, ToolName: canonical, CallID: c.ID, Path: primary.pc.Resolved,
		Decision: decision, Reasons: reasons}
	if sensitive {
		req.Severity = safety.SeverityHigh
	}
	// A person deciding about a sensitive file sees the exact diff, and
	// what the tool then writes must be what was shown.
	var preview []byte
	if decision == safety.Confirm {
		if plan := h.planners[canonical]; plan != nil && len(ts) == 1 {
			if data, err := plan(args, primary.before, primary.exists); err == nil {
				preview = data
				var st approval.DiffStats
				req.Diff, st = approval.UnifiedDiff(primary.pc.Rel, primary.before, data, !primary.exists, -1)
				req.Added, req.Removed = st.Added, st.Removed
			}
		}
		if req.Diff == "" {
			req.Summary = fmt.Sprintf("%s %s", canonical, strings.Join(paths, " → "))
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
		return outcome{Text: "Not changed: cannot open a checkpoint to make the change undoable: " + err.Error(), Status: StatusError, Detail: err.Error(), Path: primary.pc.Rel}
	}
	// Checkpoints hold regular files. A new folder, or a folder being
	// renamed, has no content to snapshot: snapshotting its absent
	// destination would only make undo trip over the directory later.
	dirOnly := canonical == "create_folder" || (canonical == "rename_file" && !primary.exists)
	for i := range ts {
		if dirOnly {
			break
		}
		if o, ok := h.snapshot(ctx, cs, canonical, &ts[i]); !ok {
			return o
		}
	}

	res := h.execute(ctx, tools.Call{ID: c.ID, Name: canonical, Arguments: c.Args})
	o := fromToolResult(res)
	o.Path = primary.pc.Rel
	o.AutoApproved = decision == safety.Confirm && approved.By() != "user"
	if res.IsError {
		if ctx.Err() != nil {
			o.Status = StatusSkipped
		}
		return o
	}
	call := checkpoint.Call{ID: c.ID, Tool: canonical}
	for i := range ts {
		if ts[i].snap {
			if notFile(h.files, ts[i].pc.Rel) {
				releaseNonFile(ctx, cs, ts[i].pc.Rel, h.logger)
				continue
			}
			if err := cs.Record(context.WithoutCancel(ctx), call, ts[i].pc.Rel); err != nil {
				h.logger.Warn("agent: change not recorded in the checkpoint", "path", ts[i].pc.Rel, "err", err)
				o.Text += "\n[warning: this change is not recorded in the checkpoint and cannot be undone from it]"
			}
		}
	}
	after, aerr := h.files.ReadFile(primary.pc.Rel)
	if preview != nil && (aerr != nil || !bytes.Equal(after, preview)) {
		// The tool wrote something other than the approved diff: put the
		// file back rather than keep an unapproved change.
		_, uerr := cs.UndoFile(context.WithoutCancel(ctx), primary.pc.Rel, checkpoint.UndoOptions{})
		h.logger.Warn("agent: written content differs from the approved preview; reverted", "path", primary.pc.Rel, "undo_err", uerr)
		return outcome{Text: fmt.Sprintf("Not changed: %s would have written something other than the approved change to %s, so the file was restored. Read the file and try again.", canonical, primary.pc.Rel),
			Status: StatusError, Detail: "differs from the approved preview", Path: primary.pc.Rel}
	}
	if o.Added == 0 && o.Removed == 0 && aerr == nil {
		st := lineStats(primary.pc.Rel, primary.before, after, !primary.exists)
		o.Added, o.Removed = st.Added, st.Removed
	}
	switch {
	case primary.exists && aerr == nil && bytes.Equal(primary.before, after) && len(ts) == 1:
		o.Status, o.Detail = StatusSkipped, "no changes"
	default:
		o.Wrote = true
		o.CheckpointID = cs.ID()
		if o.Detail == "" || strings.HasPrefix(o.Detail, "lines ") {
			o.Detail = fmt.Sprintf("+%d −%d", o.Added, o.Removed)
		}
	}
	return o
}

// snapshot takes a target's pre-image. A directory (rename_file of a
// folder, create_folder) has no content to snapshot and goes ahead
// without; a path inside .git is refused.
func (h *fileEditHandler) snapshot(ctx context.Context, cs changeSet, canonical string, t *target) (outcome, bool) {
	err := cs.Snapshot(ctx, t.pc.Rel)
	switch {
	case err == nil:
		t.snap = true
		return outcome{}, true
	case errors.Is(err, checkpoint.ErrProtectedPath):
		return outcome{Text: fmt.Sprintf("Not changed: %s is inside .git, which the agent never writes.", t.pc.Rel), Status: StatusDenied, Detail: err.Error(), Path: t.pc.Rel}, false
	case errors.Is(err, checkpoint.ErrNotRegular):
		h.logger.Info("agent: not snapshotting a non-regular path", "tool", canonical, "path", t.pc.Rel)
		return outcome{}, true
	}
	if ctx.Err() != nil {
		return failed(StatusSkipped, "Not changed: the run was cancelled."), false
	}
	return outcome{Text: fmt.Sprintf("Not changed: cannot snapshot %s, so the change could not be undone: %v", t.pc.Rel, err), Status: StatusError, Detail: err.Error(), Path: t.pc.Rel}, false
}

// notFile reports a path that exists now but is not a regular file (the
// tool or command made a directory there).
func notFile(files fileReader, rel string) bool {
	_, err := files.ReadFile(rel)
	return err != nil && !errors.Is(err, fs.ErrNotExist)
}

// releaseNonFile takes a path that became a directory out of undo: a
// checkpoint restores files, and would otherwise report the directory as
// someone else's change.
func releaseNonFile(ctx context.Context, cs changeSet, rel string, logger *slog.Logger) {
	if err := cs.KeepFile(context.WithoutCancel(ctx), rel); err != nil {
		logger.Warn("agent: cannot release a non-file path from the checkpoint", "path", rel, "err", err)
	}
}

func lineStats(rel string, before, after []byte, created bool) approval.DiffStats {
	_, st := approval.UnifiedDiff(rel, before, after, created, 0)
	return st
}

// fileEditTools are the built-in tools (tools/fstools) that change files.
var fileEditTools = map[string]bool{"write_file": true, "create_file": true, "edit_file": true, "modify_lines": true,
	"patch_file": true, "rename_file": true, "create_folder": true, "delete_file": true}

// isFileEditSpec reports whether calls of a tool go through the file-edit
// handler: the built-in file tools, and any other tool that may change
// things and takes a "path".
func isFileEditSpec(s tools.Spec) bool {
	if s.ReadOnly {
		return false
	}
	return fileEditTools[s.Name] || bytes.Contains(s.Parameters, []byte(`"path"`))
}

// noContentTools change files without writing content: no "Writing…".
var noContentTools = map[string]bool{"rename_file": true, "create_folder": true, "delete_file": true}

var newPathKeys = []string{"new_path", "newPath", "destination", "dest", "to", "target"}

// editPaths lists the paths a call changes: its path, a rename's
// destination, or the file a patch names in its +++ line.
func editPaths(canonical string, args map[string]json.RawMessage) []string {
	var out []string
	if p := stringArg(args, pathKeys...); p != "" {
		out = append(out, p)
	} else if canonical == "patch_file" {
		if p := patchTarget(stringArg(args, "diff", "patch")); p != "" {
			out = append(out, p)
		}
	}
	if canonical == "rename_file" {
		if p := stringArg(args, newPathKeys...); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// patchTarget is the file a unified diff's "+++ b/path" line names.
func patchTarget(diff string) string {
	for line := range strings.Lines(diff) {
		if rest, ok := strings.CutPrefix(line, "+++ "); ok {
			p := strings.TrimSpace(rest)
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			p = strings.TrimPrefix(p, "b/")
			if p == "/dev/null" {
				return ""
			}
			return p
		}
	}
	return ""
}
