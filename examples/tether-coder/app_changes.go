package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tetherdev/tether/checkpoint"
)

// checkpoints returns the current session's checkpoints, oldest first.
func (a *app) checkpoints(ctx context.Context) ([]checkpoint.Info, error) {
	if a.sess == nil {
		return nil, nil
	}
	infos, err := a.cps.List(ctx, a.sess.ID())
	slices.SortStableFunc(infos, func(x, y checkpoint.Info) int { return x.Created.Compare(y.Created) })
	return infos, err
}

// openCheckpoints opens the session's checkpoints whose changes are
// still undecided, oldest first.
func (a *app) openCheckpoints(ctx context.Context) ([]*checkpoint.Checkpoint, error) {
	infos, err := a.checkpoints(ctx)
	if err != nil {
		return nil, err
	}
	var out []*checkpoint.Checkpoint
	for _, in := range infos {
		if in.State != checkpoint.StateOpen {
			continue
		}
		cp, err := a.cps.Open(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	return out, nil
}

// diffText shows every undecided change of the session.
func (a *app) diffText(ctx context.Context, st styles) (string, error) {
	cps, err := a.openCheckpoints(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	files, added, removed := 0, 0, 0
	for _, cp := range cps {
		d, err := cp.Diff(ctx)
		if err != nil {
			return "", err
		}
		for _, f := range d.Files {
			fmt.Fprintf(&b, "%s %s %s %s\n", st.bold.Render(f.Path), st.dim.Render("("+string(f.Kind)+")"), st.stat(f.Added, f.Removed), st.dim.Render(cp.ID()))
			b.WriteString(st.diff(f.Unified, "    "))
		}
		files, added, removed = files+len(d.Files), added+d.Added, removed+d.Removed
	}
	if files == 0 {
		return st.dim.Render("no undecided changes in this session"), nil
	}
	fmt.Fprintf(&b, "%d file(s), %s", files, st.stat(added, removed))
	return b.String(), nil
}

// keepAll accepts every undecided change of the session.
func (a *app) keepAll(ctx context.Context, st styles) (string, error) {
	cps, err := a.openCheckpoints(ctx)
	if err != nil {
		return "", err
	}
	if len(cps) == 0 {
		return st.dim.Render("nothing to keep: no undecided changes"), nil
	}
	var ids []string
	for _, cp := range cps {
		if err := cp.Keep(ctx); err != nil {
			return "", err
		}
		ids = append(ids, cp.ID())
	}
	return st.ok.Render("kept") + " the changes of " + strings.Join(ids, ", "), nil
}

// undo reverts checkpoint id; since also reverts every later one.
func (a *app) undo(ctx context.Context, st styles, id string, since, force bool) (string, error) {
	cp, err := a.cps.Open(ctx, id)
	if err != nil {
		return "", err
	}
	if a.sess == nil || cp.Info().Session != a.sess.ID() {
		return "", fmt.Errorf("checkpoint %s is not in this session; /undo lists the session's checkpoints", id)
	}
	// A checkpoint decided file by file or hunk by hunk stays open; what it
	// says of itself tells whether anything is left to undo.
	if d := cp.Decided(); d.Pending == 0 && !since {
		if d.Kept+d.Undone+d.Settled == 0 {
			return st.dim.Render(fmt.Sprintf("nothing to undo: %s changed no files", id)), nil
		}
		return st.dim.Render(fmt.Sprintf("nothing to undo: the changes of %s were already %s", id, d)), nil
	}
	var rep checkpoint.UndoReport
	if since {
		rep, err = a.cps.UndoSince(ctx, id, checkpoint.UndoOptions{Force: force})
	} else {
		rep, err = cp.Undo(ctx, checkpoint.UndoOptions{Force: force})
	}
	var b strings.Builder
	for _, p := range rep.Restored {
		b.WriteString("  " + st.ok.Render("restored") + " " + p + "\n")
	}
	for _, p := range rep.Removed {
		b.WriteString("  " + st.ok.Render("removed") + " " + p + "\n")
	}
	for _, s := range rep.Skipped {
		b.WriteString("  " + st.warn.Render("skipped") + fmt.Sprintf(" %s: %s", s.Path, s.Reason) + "\n")
	}
	switch {
	case errors.Is(err, checkpoint.ErrConflict):
		b.WriteString(st.warn.Render("files changed since the agent wrote them were left alone; /undo " + id + " force restores them anyway"))
	case err != nil:
		return "", err
	case len(rep.Restored)+len(rep.Removed) == 0:
		b.WriteString(st.dim.Render("nothing to undo in " + id))
	default:
		b.WriteString(st.ok.Render("undone") + " " + id)
	}
	return b.String(), nil
}
