package main

import (
	"context"
	"errors"
	"fmt"
)

// With -staging, file tools only stage their changes: each tool_action's
// output holds a token (chg_…) and the diff. The host reviews it and
// sends {"type":"apply","token":"chg_…"}, which is its approval: it may
// write a confirm-level file (such as .env), which the model's own
// apply_file_change may not in a gateway with nobody to ask. A token works
// once and is refused if the file changed since the preview.

// changeApplied reports an apply request.
type changeApplied struct {
	Type       string `json:"type"`
	Line       int    `json:"line"`
	Token      string `json:"token"`
	Path       string `json:"path"`
	Checkpoint string `json:"checkpoint"`
	Added      int    `json:"added"`
	Removed    int    `json:"removed"`
}

func (g *gateway) apply(ctx context.Context, j job) {
	if !g.staging {
		g.fail(j.line, errors.New("apply: staging mode is off; start with -staging"))
		return
	}
	if j.req.Token == "" {
		g.fail(j.line, errors.New(`apply: "token" is required: the chg_… token of a staged change`))
		return
	}
	res, err := g.x.ApplyChange(ctx, j.req.Token)
	if err != nil {
		g.fail(j.line, fmt.Errorf("apply: %w", err))
		return
	}
	g.lastCheckpoint = res.CheckpointID
	g.out.writeJSON(changeApplied{Type: "change_applied", Line: j.line, Token: j.req.Token, Path: res.Rel,
		Checkpoint: res.CheckpointID, Added: res.Stats.Added, Removed: res.Stats.Removed})
}
