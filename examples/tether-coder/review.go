package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/checkpoint"
)

// reviewFile is one changed file of one undecided checkpoint.
type reviewFile struct {
	cp    *checkpoint.Checkpoint
	diff  checkpoint.FileDiff
	hunks []checkpoint.Hunk // nil when the change is all or nothing (deleted, moved, binary)
	why   string            // why it has no hunks
}

// reviewView walks the session's undecided changes file by file and hunk
// by hunk; every decision goes straight to the checkpoint (AcceptHunk,
// RejectHunk, KeepFile, UndoFile), so what is on disk is always what the
// view shows.
type reviewView struct {
	st                 styles
	files              []reviewFile
	file, hunk         int
	msg                string
	accepted, rejected int
	// typed: keys arrive one typed line at a time (plain mode), which
	// says them at its own prompt; arrows and Esc do not exist there.
	typed bool
}

func newReview(ctx context.Context, a *app, st styles) (*reviewView, error) {
	cps, err := a.openCheckpoints(ctx)
	if err != nil {
		return nil, err
	}
	rv := &reviewView{st: st}
	for _, cp := range cps {
		d, err := cp.Diff(ctx)
		if err != nil {
			return nil, err
		}
		for _, fd := range d.Files {
			f := reviewFile{cp: cp, diff: fd}
			f.reload(ctx)
			rv.files = append(rv.files, f)
		}
	}
	return rv, nil
}

func (f *reviewFile) reload(ctx context.Context) {
	hs, err := f.cp.Hunks(ctx, f.diff.Path)
	f.hunks, f.why = hs, ""
	if err != nil {
		f.why = err.Error()
	}
}

// key handles one key and reports whether the review is over.
func (rv *reviewView) key(ctx context.Context, k string) (done bool) {
	if len(rv.files) == 0 {
		return true
	}
	f := &rv.files[rv.file]
	rv.msg = ""
	var err error
	switch k {
	case "esc", "q":
		return true
	case "up", "k":
		rv.hunk = max(rv.hunk-1, 0)
	case "down", "j":
		rv.hunk = min(rv.hunk+1, max(len(f.hunks)-1, 0))
	case "left", "h":
		rv.file, rv.hunk = max(rv.file-1, 0), 0
	case "right", "l", "tab":
		rv.file, rv.hunk = min(rv.file+1, len(rv.files)-1), 0
	case "a", "r":
		if len(f.hunks) == 0 {
			rv.msg = "this change is all or nothing: A keeps the file, R reverts it"
			break
		}
		h := f.hunks[rv.hunk]
		if k == "a" {
			if err = f.cp.AcceptHunk(ctx, f.diff.Path, h.ID); err == nil {
				rv.accepted++
			}
		} else {
			if err = f.cp.RejectHunk(ctx, f.diff.Path, h.ID, checkpoint.UndoOptions{}); err == nil {
				rv.rejected++
			}
		}
		rv.settle(ctx)
	case "A":
		if err = f.cp.KeepFile(ctx, f.diff.Path); err == nil {
			rv.accepted += max(len(f.hunks), 1)
			rv.drop()
		}
	case "R":
		if _, err = f.cp.UndoFile(ctx, f.diff.Path, checkpoint.UndoOptions{}); err == nil {
			rv.rejected += max(len(f.hunks), 1)
			rv.drop()
		}
	}
	if err != nil {
		rv.msg = "error: " + err.Error()
		if errors.Is(err, checkpoint.ErrConflict) {
			rv.msg = "the file changed since the agent wrote it; left alone (/undo ID force overrides)"
		}
	}
	return len(rv.files) == 0
}

// settle reloads the current file after a hunk decision and drops it
// when no hunk is left.
func (rv *reviewView) settle(ctx context.Context) {
	f := &rv.files[rv.file]
	f.reload(ctx)
	if len(f.hunks) == 0 {
		rv.drop()
		return
	}
	rv.hunk = min(rv.hunk, len(f.hunks)-1)
}

func (rv *reviewView) drop() {
	rv.files = append(rv.files[:rv.file], rv.files[rv.file+1:]...)
	rv.file, rv.hunk = min(rv.file, max(len(rv.files)-1, 0)), 0
}

func (rv *reviewView) summary() string {
	s := fmt.Sprintf("review: %d accepted, %d rejected", rv.accepted, rv.rejected)
	if n := len(rv.files); n > 0 {
		s += fmt.Sprintf(", %d file(s) still undecided (/review again, /keep or /undo)", n)
	}
	return rv.st.dim.Render(s)
}

func (rv *reviewView) view(width, height int) string {
	st := rv.st
	if len(rv.files) == 0 {
		return st.dim.Render("nothing left to review")
	}
	f := rv.files[rv.file]
	lines := []string{st.bold.Render(fmt.Sprintf("Review · file %d/%d ", rv.file+1, len(rv.files))) +
		f.diff.Path + " " + st.dim.Render("("+string(f.diff.Kind)+")") + " " + st.stat(f.diff.Added, f.diff.Removed) + " " + st.dim.Render(f.cp.ID())}
	room := max(height-8, 4)
	if len(f.hunks) == 0 {
		lines = append(lines, st.dim.Render("  "+f.why))
		lines = append(lines, clip(strings.Split(strings.TrimRight(st.diff(f.diff.Unified, "  "), "\n"), "\n"), room, st)...)
	} else {
		var body []string
		for i, h := range f.hunks {
			head := fmt.Sprintf("hunk %d/%d %s", i+1, len(f.hunks), st.stat(h.Added, h.Removed))
			if i == rv.hunk {
				head = st.selected.Render("▶ "+fmt.Sprintf("hunk %d/%d", i+1, len(f.hunks))) + " " + st.stat(h.Added, h.Removed)
				body = append(body, head)
				body = append(body, strings.Split(strings.TrimRight(st.diff(h.Unified, "    "), "\n"), "\n")...)
			} else {
				body = append(body, "  "+head+" "+st.dim.Render(oneLine(firstChange(h.Unified), 60)))
			}
		}
		lines = append(lines, clip(body, room, st)...)
	}
	if rv.msg != "" {
		lines = append(lines, st.warn.Render(rv.msg))
	}
	if !rv.typed {
		lines = append(lines, st.dim.Render("↑/↓ hunk · ←/→ file · a accept hunk · r reject hunk · A keep file · R revert file · esc done"))
	}
	return st.card.Width(width).Render(strings.Join(lines, "\n"))
}

func firstChange(unified string) string {
	for _, l := range strings.Split(unified, "\n") {
		if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
			return l
		}
	}
	return ""
}

func clip(lines []string, n int, st styles) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n], st.dim.Render(fmt.Sprintf("  … %d more lines", len(lines)-n)))
}

// undoPicker lists the session's checkpoints for /undo.
type undoPicker struct {
	a     *app
	st    styles
	infos []checkpoint.Info
	// decided is how far each checkpoint's review has come, as the
	// checkpoint itself tells: one reviewed file by file stays open.
	decided []checkpoint.Decided
	sel     int
	typed   bool // plain mode: undo is typed as /undo N, no keys to pick with
}

// newUndoPicker lists the session's checkpoints with their review state,
// the last one selected. It returns nil when there are none.
func newUndoPicker(ctx context.Context, a *app, st styles) (*undoPicker, error) {
	infos, err := a.checkpoints(ctx)
	if err != nil || len(infos) == 0 {
		return nil, err
	}
	p := &undoPicker{a: a, st: st, infos: infos, sel: len(infos) - 1}
	for _, in := range infos {
		cp, err := a.cps.Open(ctx, in.ID)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", in.ID, err)
		}
		p.decided = append(p.decided, cp.Decided())
	}
	return p, nil
}

// key handles one key; done reports the picker closed, out what to show.
func (p *undoPicker) key(ctx context.Context, k string) (out string, done bool) {
	switch k {
	case "up", "k":
		p.sel = max(p.sel-1, 0)
	case "down", "j":
		p.sel = min(p.sel+1, len(p.infos)-1)
	case "esc", "q":
		return "", true
	case "enter", "b":
		out, err := p.a.undo(ctx, p.st, p.infos[p.sel].ID, k == "b", false)
		if err != nil {
			out = p.st.bad.Render("error: " + err.Error())
		}
		return out, true
	}
	return "", false
}

func (p *undoPicker) view(width int) string {
	st := p.st
	lines := []string{st.bold.Render("Undo · checkpoints of this session, oldest first")}
	for i, in := range p.infos {
		line := fmt.Sprintf("%d. %s  %-7s %s", i+1, in.ID, p.decided[i], oneLine(in.Label, 60))
		if i == p.sel {
			line = st.selected.Render("▶ " + line)
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if !p.typed {
		lines = append(lines, st.dim.Render("↑/↓ pick · enter undo this checkpoint · b undo it and every later one · esc close"))
	}
	return st.card.Width(width).Render(strings.Join(lines, "\n"))
}
