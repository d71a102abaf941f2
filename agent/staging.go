package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
)

// Staging mode (two-phase file mutation): with Config.Staging set (and
// always in envelope tool calling), a call that would write files only
// stages the exact bytes its tool declared and returns a token with the
// diff and +N −N, as prose and as Result metadata ("token",
// "diffPreview"); nothing is written. A call whose tool asked to stage
// (Effects.Stage: the preview tools) is a preview; any other is a
// translated write, marked "legacyTranslated". The executor offers the
// preview and apply tools of tools/fstools in this mode. A call that
// declares Effects.ApplyToken applies a token after the change is
// authorised like any file edit (a headless gateway denies it for a
// confirm-level file); the host's Executor.ApplyChange is itself the
// approval. Either way the change is snapshotted into a checkpoint and
// written only if the file is still exactly the one previewed, and a
// token is used once.

// stageable reports effects that staging can hold: content for every
// path written, no removal. The file-edit handler refuses the others (a
// rename, a deletion) in staging mode; only a call that creates nothing
// but directories runs directly.
func stageable(e tools.Effects) bool {
	if len(e.Changes) == 0 || len(e.Changes) != len(e.Writes) {
		return false
	}
	for _, c := range e.Changes {
		if c.Remove {
			return false
		}
	}
	return true
}

// stage stages each declared change instead of writing it.
func (h *fileEditHandler) stage(ctx context.Context, c *ToolCall, ts []target) outcome {
	var texts []string
	var metas []map[string]any
	var added, removed int
	for _, ch := range c.Effects.Changes {
		t := findTarget(ts, c.Effects.Dir, ch.Path) // present: handle checked every change
		if t.exists != ch.Existed || !bytes.Equal(t.before, ch.Before) {
			return failed(event.StatusError, fmt.Sprintf("Not staged: %s changed while the change was being prepared; read it again and redo the change.", t.pc.Rel))
		}
		p, err := h.stager.PreviewWrite(ctx, t.pc.Rel, ch.After)
		if errors.Is(err, approval.ErrNoChange) {
			return outcome{Text: fmt.Sprintf("%s already has this content; nothing to stage.", t.pc.Rel), Status: event.StatusSkipped, Detail: "no changes", Path: t.pc.Rel}
		}
		if err != nil {
			return outcome{Text: "Not staged: " + err.Error(), Status: errorStatus(ctx, err), Detail: err.Error(), Path: t.pc.Rel}
		}
		h.logger.Info("agent: change staged", "tool", c.Tool, "path", p.Rel, "token", p.Token, "preview", c.Effects.Stage)
		res := p.Result(!c.Effects.Stage)
		texts = append(texts, res.Text())
		metas = append(metas, res.Metadata())
		added += p.Stats.Added
		removed += p.Stats.Removed
	}
	o := outcome{Text: strings.Join(texts, "\n"), Status: event.StatusSuccess, Detail: fmt.Sprintf("+%d −%d", added, removed),
		Path: ts[0].pc.Rel, Added: added, Removed: removed, Metadata: metas[0]}
	if !c.Effects.Stage {
		o.Detail = "staged, not written " + o.Detail
	}
	if len(metas) > 1 {
		o.Metadata = map[string]any{"changes": metas}
	}
	return o
}

// applyHandler runs a call that applies a staged change (its tool
// declares Effects.ApplyToken) inside a run.
type applyHandler struct {
	stager    *approval.Stager
	authorize authorizeFunc
	changes   func(ctx context.Context) (changeSet, error)
}

func (h applyHandler) handle(ctx context.Context, c *ToolCall) outcome {
	applied, cs, err := applyStaged(ctx, h.stager, c.Effects.ApplyToken, c.ID, c.Tool, h.authorize, h.changes)
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason, Path: applied.Rel}
		}
		return outcome{Text: "Not applied: " + err.Error(), Status: errorStatus(ctx, err), Detail: firstLine(err.Error()), Path: applied.Rel}
	}
	res := fstools.AppliedResult(applied)
	return outcome{Text: res.Text, Metadata: res.Metadata,
		Status: event.StatusSuccess, Detail: applied.Stats.String(), Path: applied.Rel,
		Added: applied.Stats.Added, Removed: applied.Stats.Removed, Wrote: true, CheckpointID: cs.ID()}
}

// applyStaged authorises the change staged under token, snapshots its
// file and writes it. The Applied it returns names the file even when
// the change was refused, once the token was found.
func applyStaged(ctx context.Context, stager *approval.Stager, token, callID, tool string,
	authorize authorizeFunc, changes func(context.Context) (changeSet, error)) (approval.Applied, changeSet, error) {
	p, err := stager.Lookup(token)
	if err != nil {
		return approval.Applied{}, nil, err
	}
	named := approval.Applied{Path: p.Path, Rel: p.Rel, Resolved: p.Resolved}
	req := p.Request(tool)
	req.CallID = callID
	approved, err := authorize(ctx, req)
	if err != nil {
		return named, nil, err
	}
	cs, err := changes(ctx)
	if err != nil {
		return named, nil, fmt.Errorf("cannot open a checkpoint to make the change undoable: %w", err)
	}
	if err := cs.Snapshot(ctx, p.Rel); err != nil {
		return named, nil, fmt.Errorf("cannot snapshot %s, so the change could not be undone: %w", p.Rel, err)
	}
	applied, err := stager.ApplyApproved(ctx, approved)
	if err != nil {
		return named, nil, err
	}
	if err := cs.Record(context.WithoutCancel(ctx), checkpoint.Call{ID: callID, Tool: tool}, p.Rel); err != nil {
		return applied, cs, fmt.Errorf("applied, but not recorded in the checkpoint (undo will not cover it): %w", err)
	}
	return applied, cs, nil
}

// AppliedChange is a staged change the host applied.
type AppliedChange struct {
	approval.Applied
	// CheckpointID holds the file's pre-image, for undo.
	CheckpointID string `json:"checkpoint"`
}

// ApplyChange applies the change staged under token for a host that
// reviews staged changes itself (a client of a headless gateway): the
// call is the host's approval of the diff it was shown, so a
// confirm-level file (such as .env) may be written, while a path the
// workspace denies never is. The change is snapshotted into a checkpoint
// of its own, for undo. It fails with ErrConfig when staging mode is off,
// and with the approval package's token errors when the token is unknown,
// used, expired or its file changed since the preview.
func (e *Executor) ApplyChange(ctx context.Context, token string) (AppliedChange, error) {
	cfg := e.config()
	if cfg.Staging == nil || e.checkpoints == nil {
		return AppliedChange{}, fmt.Errorf("%w: staging mode is off (Config.Staging or Config.Workspace is nil)", ErrConfig)
	}
	gate := &approval.Gate{Logger: cfg.Logger, Policy: approval.PolicyFunc(func(_ context.Context, req approval.Request) approval.Verdict {
		if req.Kind == approval.KindFileEdit && req.Token == token {
			return approval.Verdict{Decision: safety.Allow, Reason: "the host applied the staged change"}
		}
		return approval.Verdict{Decision: safety.Deny, Reason: "not the change the host applied"}
	})}
	var cp *checkpoint.Checkpoint
	changes := func(ctx context.Context) (changeSet, error) {
		var err error
		cp, err = e.checkpoints.Begin(ctx, e.session, "apply staged change")
		return cp, err
	}
	applied, _, err := applyStaged(ctx, cfg.Staging, token, newID("apply_"), "host", gate.Authorize, changes)
	out := AppliedChange{Applied: applied}
	if cp != nil {
		out.CheckpointID = cp.ID()
	}
	return out, err
}
