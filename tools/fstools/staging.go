package fstools

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/tools"
)

// The two-phase file mutation tools: a preview stages the exact new
// content of one file under a token and writes nothing; apply_file_change
// writes it, once, if the file is still the one previewed. A staged
// result carries its token and diff twice: as prose for models that read
// text, and as Result.Metadata ("token", "diffPreview", …) for a protocol
// that reads fields.
const (
	PreviewWriteName = "preview_write_file"
	PreviewEditName  = "preview_edit_file"
	ApplyChangeName  = "apply_file_change"
)

// ApplyArgs are apply_file_change's arguments.
type ApplyArgs struct {
	Token string `json:"token" jsonschema:"description=The token a preview returned in metadata.token (chg_…)."`
}

// Staging returns preview_write_file, preview_edit_file and
// apply_file_change, bound to stager. Each declares its effects (Stage
// for the previews, ApplyToken for apply), so an agent routes and judges
// them by what they do; called directly, the previews stage through
// stager and apply writes only paths the workspace allows outright.
func Staging(ws Workspace, stager *approval.Stager) []tools.Tool {
	return []tools.Tool{NewPreviewWrite(ws, stager), NewPreviewEdit(ws, stager), NewApplyChange(stager)}
}

// NewPreviewWrite returns preview_write_file: write_file's arguments,
// staged instead of written.
func NewPreviewWrite(ws Workspace, stager *approval.Stager) tools.Tool {
	return previewing(PreviewWriteName,
		"Stage a whole-file write (or the creation of a file) without writing it: returns metadata.token and metadata.diffPreview. Apply it with apply_file_change and that token.",
		func(ws Workspace, a WriteArgs) (plan, error) {
			return planWrite(ws, a.Path, a.Content, a.Append, false)
		},
		ws, stager, contentAliases())
}

// NewPreviewEdit returns preview_edit_file: edit_file's arguments, staged
// instead of written.
func NewPreviewEdit(ws Workspace, stager *approval.Stager) tools.Tool {
	return previewing(PreviewEditName,
		"Stage a replacement of exact text in a file without writing it: old_text must match exactly once (or set replace_all). Returns metadata.token and metadata.diffPreview; apply it with apply_file_change.",
		planEdit, ws, stager, editAliases()...)
}

func previewing[Args any](name, description string, planner func(Workspace, Args) (plan, error), ws Workspace, stager *approval.Stager, opts ...tools.Option) tools.Tool {
	opts = append(opts,
		tools.WithEffects(func(_ context.Context, a Args) (tools.Effects, error) {
			p, err := planner(ws, a)
			if err != nil {
				return tools.Effects{}, err
			}
			e := p.effects()
			e.Stage = true
			return e, nil
		}),
		tools.WithPathTitle("Staging ", "Staged ", "Stage ", tools.KindEdit))
	return tools.New(name, description, func(ctx context.Context, a Args) (tools.Result, error) {
		p, err := planner(ws, a)
		if err != nil {
			return tools.Result{}, err
		}
		pv, err := stager.PreviewWrite(ctx, p.rel, p.after)
		if errors.Is(err, approval.ErrNoChange) {
			return tools.Result{Text: p.rel + " already has this content; nothing to stage.", Meta: tools.Meta{Path: p.rel}}, nil
		}
		if err != nil {
			return tools.Result{}, err
		}
		return StagedResult(pv.Result(false)), nil
	}, opts...)
}

// StagedResult is the tool result of a staged change: the prose, the
// structured metadata and the path and +N −N for a UI.
func StagedResult(r approval.StagedResult) tools.Result {
	return tools.Result{Text: r.Text(), Metadata: r.Metadata(),
		Meta: tools.Meta{Path: r.Path, Added: r.Added, Removed: r.Removed, Created: r.Created}}
}

// NewApplyChange returns apply_file_change: write the change a preview
// staged under a token. It declares the token and the file it is bound
// to, so an agent judges and approves it as an edit of that file with
// the staged diff; a token that is unknown, used or expired fails the
// declaration with a message saying to preview again.
func NewApplyChange(stager *approval.Stager) tools.Tool {
	lookup := func(a ApplyArgs) (approval.Preview, error) {
		if a.Token == "" {
			return approval.Preview{}, fmt.Errorf(`%s needs {"token": "chg_…"}, the metadata.token a preview returned`, ApplyChangeName)
		}
		p, err := stager.Lookup(a.Token)
		if err != nil {
			return p, fmt.Errorf("%w; stage the change again with %s or %s and apply the new token", err, PreviewWriteName, PreviewEditName)
		}
		return p, nil
	}
	return tools.New(ApplyChangeName,
		"Apply a file change that preview_write_file or preview_edit_file staged: pass its metadata.token. The change is written only if the file has not changed since the preview; a token works once.",
		func(ctx context.Context, a ApplyArgs) (tools.Result, error) {
			if _, err := lookup(a); err != nil {
				return tools.Result{}, err
			}
			applied, err := stager.Apply(ctx, a.Token)
			if err != nil {
				return tools.Result{}, err
			}
			return AppliedResult(applied), nil
		},
		tools.WithArgAliases("token", "change_token", "changeToken", "id"),
		tools.WithEffects(func(_ context.Context, a ApplyArgs) (tools.Effects, error) {
			p, err := lookup(a)
			if err != nil {
				return tools.Effects{}, err
			}
			return tools.Effects{Annotations: tools.Annotations{Destructive: !p.Created},
				Writes: []string{p.Rel}, ApplyToken: a.Token}, nil
		}),
		tools.WithTitle(func(_ tools.Call, eff tools.Effects) tools.Title {
			return tools.Verb("Applying the change to ", "Applied the change to ", "Apply the change to ", path.Base(tools.EffectPath(eff)), tools.KindEdit)
		}),
	)
}

// AppliedResult is the tool result of an applied change.
func AppliedResult(a approval.Applied) tools.Result {
	return tools.Result{
		Text:     fmt.Sprintf("Applied the staged change to %s (+%d −%d).", a.Rel, a.Stats.Added, a.Stats.Removed),
		Metadata: map[string]any{"path": a.Rel, "applied": true, "added": a.Stats.Added, "removed": a.Stats.Removed},
		Meta:     tools.Meta{Path: a.Rel, Added: a.Stats.Added, Removed: a.Stats.Removed, Created: a.Created},
	}
}
