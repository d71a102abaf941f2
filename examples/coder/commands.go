package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/checkpoint"
)

const help = `/diff                 what the last task changed, with +N −N
/undo [force]         put those files back (force: even if edited since)
/keep                 accept the last task's changes
/mode [MODE]          agent (edits, commands) · plan · explore · review (read-only)
/compact              summarise older turns to free context
/sessions [ID]        list sessions, or switch to one
/new                  start a new session
/quit                 exit (Ctrl-D too); Ctrl-C cancels a running task`

// command runs a slash command and reports whether to quit.
func (c *coder) command(text string) (quit bool) {
	ctx := context.Background()
	fields := strings.Fields(text)
	name, args := fields[0], fields[1:]
	st := c.scr.st
	switch name {
	case "/quit", "/exit", "/q":
		return true
	case "/help", "/?":
		c.scr.Println(help)
	case "/mode":
		if len(args) == 0 {
			c.scr.Println("mode: " + string(c.mode) + st.dim.Render("  (agent, plan, explore, review)"))
			break
		}
		if !validMode(args[0]) {
			c.fail(fmt.Errorf("unknown mode %q: want agent, plan, explore or review", args[0]))
			break
		}
		c.mode = agent.Mode(args[0])
		note := "may edit files and run commands, with your approval"
		if c.mode.ReadOnly() {
			note = "read-only: nothing will be changed"
		}
		c.scr.Println("mode " + st.bold.Render(string(c.mode)) + st.dim.Render(": "+note))
	case "/diff":
		c.diff(ctx)
	case "/undo":
		c.undo(ctx, len(args) > 0 && args[0] == "force")
	case "/keep":
		cp, ok := c.checkpoint(ctx)
		if !ok {
			break
		}
		if err := cp.Keep(ctx); err != nil {
			c.fail(err)
			break
		}
		c.scr.Println(st.ok.Render("kept") + " the changes of " + cp.ID())
	case "/compact":
		c.compact(ctx)
	case "/sessions":
		if len(args) > 0 {
			if err := c.switchSession(ctx, args[0]); err != nil {
				c.fail(err)
				break
			}
			c.announceSession(ctx)
			break
		}
		c.listSessions(ctx)
	case "/new":
		c.sess, c.lastCheckpoint = nil, ""
		c.scr.Println(st.dim.Render("new session: the next task starts a fresh conversation"))
	default:
		c.fail(fmt.Errorf("unknown command %s; /help lists them", name))
	}
	return false
}

// checkpoint opens the last task's checkpoint.
func (c *coder) checkpoint(ctx context.Context) (*checkpoint.Checkpoint, bool) {
	if c.lastCheckpoint == "" {
		c.scr.Println(c.scr.st.dim.Render("no changes yet in this session"))
		return nil, false
	}
	cp, err := c.cps.Open(ctx, c.lastCheckpoint)
	if err != nil {
		c.fail(err)
		return nil, false
	}
	return cp, true
}

func (c *coder) diff(ctx context.Context) {
	cp, ok := c.checkpoint(ctx)
	if !ok {
		return
	}
	d, err := cp.Diff(ctx)
	if err != nil {
		c.fail(err)
		return
	}
	st := c.scr.st
	if len(d.Files) == 0 {
		c.scr.Println(st.dim.Render(fmt.Sprintf("nothing pending in %s (%s)", cp.ID(), cp.Info().State)))
		return
	}
	for _, f := range d.Files {
		c.scr.Println(st.bold.Render(f.Path) + " " + st.dim.Render("("+string(f.Kind)+")") + " " + stat(st, f.Added, f.Removed))
		c.scr.Printf("%s", st.diff(f.Unified))
	}
	c.scr.Println(fmt.Sprintf("%d file(s), %s  %s", len(d.Files), stat(st, d.Added, d.Removed), st.dim.Render("checkpoint "+cp.ID())))
}

func (c *coder) undo(ctx context.Context, force bool) {
	cp, ok := c.checkpoint(ctx)
	if !ok {
		return
	}
	st := c.scr.st
	if state := cp.Info().State; state != checkpoint.StateOpen {
		c.scr.Println(st.dim.Render(fmt.Sprintf("nothing to undo: the changes of %s were already %s", cp.ID(), state)))
		return
	}
	rep, err := cp.Undo(ctx, checkpoint.UndoOptions{Force: force})
	for _, p := range rep.Restored {
		c.scr.Println("  " + st.ok.Render("restored") + " " + p)
	}
	for _, p := range rep.Removed {
		c.scr.Println("  " + st.ok.Render("removed") + " " + p)
	}
	for _, s := range rep.Skipped {
		c.scr.Println("  " + st.warn.Render("skipped") + fmt.Sprintf(" %+v", s))
	}
	switch {
	case errors.Is(err, checkpoint.ErrConflict):
		c.scr.Println(st.warn.Render("some files were changed since the task wrote them and were left alone; /undo force restores them anyway"))
	case err != nil:
		c.fail(err)
	case len(rep.Restored)+len(rep.Removed) == 0:
		c.scr.Println(st.dim.Render("nothing to undo"))
	default:
		c.scr.Println(st.ok.Render("undone") + " " + cp.ID())
	}
}

func (c *coder) compact(ctx context.Context) {
	if c.sess == nil {
		c.scr.Println(c.scr.st.dim.Render("nothing to compact: no conversation yet"))
		return
	}
	c.scr.startSpinner("Compacting the conversation…")
	res, err := c.sess.Compact(ctx, agent.CompactOptions{Task: -1})
	switch {
	case errors.Is(err, agent.ErrNothingToCompact):
		c.scr.Println(c.scr.st.dim.Render("nothing to compact yet: the conversation is short"))
	case err != nil:
		c.fail(err)
	default:
		c.scr.Println(fmt.Sprintf("compacted %d messages into a summary, kept %d", res.Summarized, res.Kept))
	}
}

func (c *coder) listSessions(ctx context.Context) {
	infos, err := c.sessions.List(ctx)
	if err != nil {
		c.fail(err)
		return
	}
	st := c.scr.st
	if len(infos) == 0 {
		c.scr.Println(st.dim.Render("no sessions yet"))
		return
	}
	for _, in := range infos {
		mark := "  "
		if c.sess != nil && in.ID == c.sess.ID() {
			mark = st.accent.Render("▸ ")
		}
		c.scr.Println(fmt.Sprintf("%s%s  %s  %s", mark, in.ID, in.Title,
			st.dim.Render(fmt.Sprintf("%d task(s), %s", in.Runs, in.Updated.Local().Format(time.DateTime)))))
	}
	c.scr.Println(st.dim.Render("/sessions ID switches to a session"))
}

// switchSession makes id current and finds its last checkpoint that
// still has changes, so /diff and /undo work after a restart.
func (c *coder) switchSession(ctx context.Context, id string) error {
	s, err := c.sessions.Open(ctx, id)
	if err != nil {
		return fmt.Errorf("session %s: %w", id, err)
	}
	c.sess, c.lastCheckpoint = s, ""
	infos, err := c.cps.List(ctx, id)
	if err != nil {
		return err
	}
	slices.SortFunc(infos, func(a, b checkpoint.Info) int { return a.Created.Compare(b.Created) })
	for _, in := range infos {
		c.lastCheckpoint = in.ID
	}
	return nil
}

func (c *coder) announceSession(ctx context.Context) {
	info, _ := c.sess.Info(ctx)
	line := "session " + c.scr.st.bold.Render(c.sess.ID()) + " " + info.Title
	if c.lastCheckpoint != "" {
		line += c.scr.st.dim.Render(" · last checkpoint " + c.lastCheckpoint + " (/diff, /undo)")
	}
	c.scr.Println(line)
}
