package fstools

import (
	"context"
	"io/fs"

	"github.com/tetherdev/tether/tools"
)

// plan is what a content-writing tool will do to one file, computed
// without writing: the tool declares it as the call's effects (so that the
// diff a person approves is made of these bytes) and then commits exactly
// it.
type plan struct {
	rel     string
	before  []byte
	existed bool
	after   []byte
	perm    fs.FileMode
	result  tools.Result // what the call reports once written
}

// effects declares p: one write of exactly p.after.
func (p plan) effects() tools.Effects {
	return tools.Effects{
		Annotations: tools.Annotations{Destructive: p.existed, Idempotent: true},
		Writes:      []string{p.rel},
		Changes:     []tools.FileChange{{Path: p.rel, Before: p.before, Existed: p.existed, After: p.after}},
	}
}

// commit writes p.after atomically. Under an approval (see
// tools.WithApproved) it first checks that these are the approved bytes,
// computed from the approved pre-image, and writes nothing otherwise.
func (p plan) commit(ctx context.Context, ws Workspace) (tools.Result, error) {
	if err := tools.CheckApproved(ctx, p.rel, p.before, p.after, p.existed); err != nil {
		return tools.Result{}, err
	}
	if err := ws.WriteFile(p.rel, p.after, p.perm); err != nil {
		return tools.Result{}, err
	}
	return p.result, nil
}

// planned builds a content-writing tool from its planner: Execute plans
// and commits, Effects plans and declares.
func planned[Args any](name, description string, planner func(ws Workspace, a Args) (plan, error), ws Workspace, opts ...tools.Option) tools.Tool {
	opts = append(opts, tools.WithEffects(func(_ context.Context, a Args) (tools.Effects, error) {
		p, err := planner(ws, a)
		if err != nil {
			return tools.Effects{}, err
		}
		return p.effects(), nil
	}))
	return tools.New(name, description, func(ctx context.Context, a Args) (tools.Result, error) {
		p, err := planner(ws, a)
		if err != nil {
			return tools.Result{}, err
		}
		return p.commit(ctx, ws)
	}, opts...)
}
