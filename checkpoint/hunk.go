package checkpoint

import (
	"context"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/tetherdev/tether/internal/edit"
)

// Hunk is one independently acceptable part of the agent's change to a
// file. Changes closer than 2×ContextLines lines apart form one hunk, as
// in the unified diff; distant ones stay separate.
type Hunk struct {
	// ID names this hunk of this exact diff. It changes whenever the file's
	// baseline or the agent's content changes, so a stale ID is refused
	// (ErrStaleHunk) rather than applied to a different change.
	ID       string `json:"id"`
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Stats
	Unified string `json:"unified"` // "@@ … @@" header and lines
}

// hunkPlan is a file's diff split into hunks, with the edits of each.
type hunkPlan struct {
	rec       FileRecord
	pre, post string
	hunks     []Hunk
	groups    [][]udiff.Edit
}

// Hunks returns the hunks of the agent's net change to name.
func (c *Checkpoint) Hunks(ctx context.Context, name string) ([]Hunk, error) {
	rel, err := key(c.m.files, name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.plan(ctx, rel)
	if err != nil {
		return nil, err
	}
	return p.hunks, nil
}

func (c *Checkpoint) plan(ctx context.Context, rel string) (hunkPlan, error) {
	rec, ok := c.files[rel]
	if !ok || rec.Status != FilePending {
		return hunkPlan{}, &PathError{Op: "hunks", Path: rel, Err: fmt.Errorf("%w: the checkpoint has no pending change to this file", ErrNotFound)}
	}
	if rec.RenamedFrom != "" && !rec.Pre.Exists {
		// Against its own (absent) baseline every line would be one "added"
		// hunk, and rejecting them would delete the moved file.
		return hunkPlan{}, &PathError{Op: "hunks", Path: rel, Err: fmt.Errorf("%w: the file was moved here from %s; keep or undo the move as a whole", ErrInvalidPath, rec.RenamedFrom)}
	}
	if rec.Pre.Exists && !rec.Post.Exists {
		return hunkPlan{}, &PathError{Op: "hunks", Path: rel, Err: fmt.Errorf("%w: the file was deleted; keep or undo the deletion as a whole", ErrInvalidPath)}
	}
	pre, err := c.content(ctx, rec.Pre)
	if err != nil {
		return hunkPlan{}, err
	}
	post, err := c.content(ctx, rec.Post)
	if err != nil {
		return hunkPlan{}, err
	}
	if edit.IsBinary(pre) || edit.IsBinary(post) {
		return hunkPlan{}, &PathError{Op: "hunks", Path: rel, Err: ErrBinary}
	}
	p := hunkPlan{rec: rec, pre: string(pre), post: string(post)}
	// Group edits exactly as the unified diff groups them into hunks.
	lastEnd := -1
	for _, e := range udiff.Lines(p.pre, p.post) {
		start := strings.Count(p.pre[:e.Start], "\n")
		end := strings.Count(p.pre[:e.End], "\n")
		if e.End == len(p.pre) && p.pre != "" && !strings.HasSuffix(p.pre, "\n") {
			end++
		}
		if len(p.groups) == 0 || start > lastEnd+2*ContextLines {
			p.groups = append(p.groups, nil)
		}
		p.groups[len(p.groups)-1] = append(p.groups[len(p.groups)-1], e)
		lastEnd = end
	}
	delta := 0 // lines added minus removed by earlier hunks
	for _, g := range p.groups {
		u, err := udiff.ToUnifiedDiff("a", "b", p.pre, g, ContextLines)
		if err != nil || len(u.Hunks) != 1 {
			return hunkPlan{}, fmt.Errorf("checkpoint: hunks of %s: grouping disagrees with the diff (%d hunks, err %v)", rel, len(u.Hunks), err)
		}
		h := renderHunk(u.Hunks[0], delta)
		h.Stats = edit.StatsOf(p.pre, g)
		h.ID = hashOf([]byte(rel + "\x00" + rec.Pre.Hash + "\x00" + rec.Post.Hash + "\x00" + h.Unified))[:16]
		delta += h.Added - h.Removed
		p.hunks = append(p.hunks, h)
	}
	return p, nil
}

func renderHunk(uh *udiff.Hunk, delta int) Hunk {
	h := Hunk{OldStart: uh.FromLine, NewStart: uh.FromLine + delta}
	var body strings.Builder
	for _, l := range uh.Lines {
		prefix := " "
		switch l.Kind {
		case udiff.Delete:
			prefix = "-"
			h.OldLines++
		case udiff.Insert:
			prefix = "+"
			h.NewLines++
		default:
			h.OldLines++
			h.NewLines++
		}
		body.WriteString(prefix + l.Content)
		if !strings.HasSuffix(l.Content, "\n") {
			body.WriteString("\n\\ No newline at end of file\n")
		}
	}
	// Unified-diff convention: an empty range names the line before it.
	oldStart, newStart := h.OldStart, h.NewStart
	if h.OldLines == 0 {
		oldStart--
	}
	if h.NewLines == 0 {
		newStart--
	}
	h.Unified = fmt.Sprintf("@@ -%d,%d +%d,%d @@\n", oldStart, h.OldLines, newStart, h.NewLines) + body.String()
	return h
}

func (p hunkPlan) find(id string) (int, error) {
	for i, h := range p.hunks {
		if h.ID == id {
			return i, nil
		}
	}
	return -1, &PathError{Op: "hunk", Path: p.rec.Path, Err: fmt.Errorf("%w: no hunk %q in the current diff", ErrStaleHunk, id)}
}

// apply returns pre with the edits of the selected groups applied.
func (p hunkPlan) apply(keep func(i int) bool) (string, error) {
	var edits []udiff.Edit
	for i, g := range p.groups {
		if keep(i) {
			edits = append(edits, g...)
		}
	}
	return udiff.Apply(p.pre, edits)
}

// AcceptHunk folds one hunk into the file's baseline: it stays on disk,
// disappears from Diff and Hunks, and Undo no longer reverts it. Once every
// hunk is accepted the file counts as kept.
func (c *Checkpoint) AcceptHunk(ctx context.Context, name, id string) error {
	rel, err := key(c.m.files, name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writable(); err != nil {
		return err
	}
	defer c.m.lockPaths(rel)()
	p, err := c.plan(ctx, rel)
	if err != nil {
		return err
	}
	i, err := p.find(id)
	if err != nil {
		return err
	}
	base, err := p.apply(func(j int) bool { return j == i })
	if err != nil {
		return err
	}
	rec := p.rec
	mode := rec.Pre.Mode
	if !rec.Pre.Exists {
		mode = rec.Post.Mode
	}
	rec.Pre = Image{Exists: true, Hash: hashOf([]byte(base)), Mode: mode}
	if rec.Pre.Same(rec.Post) {
		rec.Status = FileKept
	}
	c.m.log.Info("checkpoint: hunk accepted", "checkpoint", c.info.ID, "path", rel, "hunk", id)
	return c.commit(ctx, Batch{Blobs: map[string][]byte{rec.Pre.Hash: []byte(base)}, Files: []FileRecord{rec}})
}

// RejectHunk reverts one hunk on disk, keeping the file's other changes.
// The file must still hold the agent's last write; if someone else changed
// it since, RejectHunk refuses with ErrConflict unless opts.Force.
func (c *Checkpoint) RejectHunk(ctx context.Context, name, id string, opts UndoOptions) error {
	rel, err := key(c.m.files, name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writable(); err != nil {
		return err
	}
	defer c.m.lockPaths(rel)()
	p, err := c.plan(ctx, rel)
	if err != nil {
		return err
	}
	i, err := p.find(id)
	if err != nil {
		return err
	}
	cur, _, err := c.m.capture(rel)
	if err != nil {
		return err
	}
	if !opts.Force && (!cur.Same(p.rec.Post) || p.rec.Tainted) {
		return &PathError{Op: "reject hunk", Path: rel, Err: ErrConflict}
	}
	content, err := p.apply(func(j int) bool { return j != i })
	if err != nil {
		return err
	}
	rec := p.rec
	seq := c.nextSeq
	after := Image{Exists: true, Hash: hashOf([]byte(content)), Mode: rec.Post.Mode}
	do := func() error { return c.m.put(rel, []byte(content), after.Mode) }
	if !rec.Pre.Exists && content == "" {
		after = Image{} // rejecting all of a new file's content removes it
		do = func() error { return c.m.files.Remove(native(rel)) }
	}
	rec.Post = after
	b := Batch{Files: []FileRecord{rec}, Changes: []Change{{Checkpoint: c.info.ID, Seq: seq, Path: rel, Op: OpWrite,
		Call: Call{Tool: "reject_hunk"}, Before: cur, After: after, Pending: true, Time: c.m.now()}}}
	if after.Exists {
		b.Blobs = map[string][]byte{after.Hash: []byte(content)}
	}
	c.m.log.Info("checkpoint: hunk rejected", "checkpoint", c.info.ID, "path", rel, "hunk", id, "force", opts.Force)
	return c.mutation(ctx, b, do)
}
