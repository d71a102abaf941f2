package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/safety"
)

// fileReader is what the file-edit handler needs of *safety.Workspace.
type fileReader interface {
	Check(path string, op safety.Op) safety.PathCheck
	ReadFile(path string) ([]byte, error)
}

// changeSet records and performs the run's writes; *checkpoint.Checkpoint
// implements it: WriteFile snapshots the pre-image first, then writes
// atomically (temp file, fsync, rename) through the confined workspace.
type changeSet interface {
	WriteFile(ctx context.Context, call checkpoint.Call, name string, data []byte, perm fs.FileMode) error
	Diff(ctx context.Context) (checkpoint.Diff, error)
	ID() string
}

// fileEditHandler owns file edits (write_file, create_file, edit_file):
// confinement, sensitivity, approval with a diff preview where needed,
// checkpoint snapshot, atomic write and +N −N stats. The content written
// is exactly the content whose diff was approved.
type fileEditHandler struct {
	files     fileReader
	changes   func(ctx context.Context) (changeSet, error) // begins the run's checkpoint on first use
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	planners  map[string]editPlanner
	logger    *slog.Logger
}

func (h *fileEditHandler) handle(ctx context.Context, c call, canonical string) outcome {
	plan := h.planners[canonical]
	if plan == nil {
		return failed(StatusError, fmt.Sprintf("%s is not a file edit this agent knows how to perform", canonical))
	}
	args, err := argObject(c.Args)
	if err != nil {
		return failed(StatusError, err.Error())
	}
	p := stringArg(args, pathKeys...)
	if p == "" {
		return failed(StatusError, fmt.Sprintf(`%s needs a "path": the file to write, relative to the workspace root.`, canonical))
	}
	pc := h.files.Check(p, safety.OpWrite)
	if pc.Decision == safety.Deny {
		h.logger.Info("agent: file edit refused", "tool", canonical, "path", p, "reason", pc.Reason)
		return outcome{Text: fmt.Sprintf("Not written: %s. Only files inside the workspace can be written.", pc.Reason), Status: StatusDenied, Detail: pc.Reason, Path: p}
	}
	old, err := h.files.ReadFile(pc.Rel)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failed(StatusError, fmt.Sprintf("Cannot read %s before editing it: %v", pc.Rel, err))
	}
	data, err := plan(args, old, exists)
	if err != nil {
		return outcome{Text: fmt.Sprintf("%s %s failed: %v", canonical, pc.Rel, err), Status: StatusError, Detail: err.Error(), Path: pc.Rel}
	}
	if exists && bytes.Equal(old, data) {
		return outcome{Text: fmt.Sprintf("No change: %s already has this content.", pc.Rel), Status: StatusSkipped, Detail: "no changes", Path: pc.Rel}
	}
	diff, stats := approval.UnifiedDiff(pc.Rel, old, data, !exists, -1)
	req := approval.Request{Kind: approval.KindFileEdit, ToolName: canonical, CallID: c.ID, Path: pc.Resolved,
		Decision: pc.Decision, Diff: diff, Added: stats.Added, Removed: stats.Removed}
	if pc.Reason != "" {
		req.Reasons = []string{pc.Reason}
	}
	if pc.Sensitive || pc.Secret {
		req.Severity = safety.SeverityHigh
	}
	approved, err := h.authorize(ctx, req)
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return outcome{Text: d.ForModel(), Status: StatusDenied, Detail: d.Reason, Path: pc.Rel, Added: stats.Added, Removed: stats.Removed}
		}
		return outcome{Text: "Not written: " + err.Error(), Status: errorStatus(ctx, err), Detail: err.Error(), Path: pc.Rel}
	}
	if approved.Path() != pc.Resolved {
		return failed(StatusError, "Not written: the approved path differs from the checked one")
	}
	cs, err := h.changes(ctx)
	if err != nil {
		return outcome{Text: "Not written: cannot open a checkpoint: " + err.Error(), Status: StatusError, Detail: err.Error(), Path: pc.Rel}
	}
	if err := cs.WriteFile(ctx, checkpoint.Call{ID: c.ID, Tool: canonical}, pc.Rel, data, 0o644); err != nil {
		return outcome{Text: fmt.Sprintf("Writing %s failed, the file is unchanged: %v", pc.Rel, err), Status: errorStatus(ctx, err), Detail: err.Error(), Path: pc.Rel}
	}
	verb := "Wrote"
	if !exists {
		verb = "Created"
	}
	return outcome{
		Text:   fmt.Sprintf("%s %s (%d lines, +%d −%d).", verb, pc.Rel, bytes.Count(data, []byte("\n"))+boolInt(len(data) > 0 && data[len(data)-1] != '\n'), stats.Added, stats.Removed),
		Status: StatusSuccess, Detail: fmt.Sprintf("+%d −%d", stats.Added, stats.Removed), Path: pc.Rel,
		Added: stats.Added, Removed: stats.Removed, Wrote: true, CheckpointID: cs.ID(),
		AutoApproved: pc.Decision == safety.Confirm && approved.By() != "user",
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
