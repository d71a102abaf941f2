package checkpoint

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tetherdev/tether/internal/edit"
)

// ContextLines is the number of unchanged lines around each change in a
// unified diff. Changes closer than twice this distance share one hunk.
const ContextLines = 3

// ChangeKind says what the agent did to a file overall.
type ChangeKind string

const (
	Added    ChangeKind = "added"
	Modified ChangeKind = "modified"
	Deleted  ChangeKind = "deleted"
	Renamed  ChangeKind = "renamed"
)

// Stats counts changed lines, for "+N −N" badges.
type Stats = edit.Stats

// FileDiff is the agent's net change to one file: pre-image → the agent's
// last write.
type FileDiff struct {
	Path    string     `json:"path"`
	OldPath string     `json:"old_path,omitempty"` // rename source
	Kind    ChangeKind `json:"kind"`
	Stats
	Binary  bool   `json:"binary,omitempty"`  // no line diff; Unified says so
	Tainted bool   `json:"tainted,omitempty"` // also changed by someone else in between
	Unified string `json:"unified"`           // unified diff with a/ and b/ labels
}

// Diff is the net change of a checkpoint.
type Diff struct {
	Checkpoint string     `json:"checkpoint"`
	Files      []FileDiff `json:"files"`
	Stats                 // totals over Files
}

// String renders every file's unified diff, one after another, as
// `git diff` would.
func (d Diff) String() string {
	var b strings.Builder
	for _, f := range d.Files {
		b.WriteString(f.Unified)
	}
	return b.String()
}

// Diff returns the net change of every file still pending in the
// checkpoint (kept and undone files are not shown), in the order the
// files were first touched. A rename whose destination did not exist
// before shows as one renamed file, whether it was made with Rename or
// recorded around a command or tool (a file removed and another created
// with exactly its content and mode).
func (c *Checkpoint) Diff(ctx context.Context) (Diff, error) {
	c.mu.Lock()
	if c.info.State == StateOpen && !c.deleted {
		c.settleFailed(ctx)
	}
	recs := c.sortedFiles()
	c.mu.Unlock()
	d := Diff{Checkpoint: c.info.ID}
	source := renameSources(recs) // destination → source
	renamed := map[string]bool{}
	for _, src := range source {
		renamed[src.Path] = true
	}
	for _, r := range recs {
		if r.Status != FilePending || renamed[r.Path] || r.Pre.Identical(r.Post) {
			continue
		}
		old, oldPath := r.Pre, r.Path
		if src, ok := source[r.Path]; ok {
			old, oldPath = src.Pre, src.Path
		}
		fd, err := c.fileDiff(ctx, oldPath, r.Path, old, r.Post)
		if err != nil {
			return Diff{}, err
		}
		fd.Tainted = r.Tainted
		d.Files = append(d.Files, fd)
		d.Added += fd.Added
		d.Removed += fd.Removed
	}
	return d, nil
}

// renameSources pairs each pending new file with the pending removed
// file it was renamed from: the one Rename named, or else the first
// removed file with the same content and mode.
func renameSources(recs []FileRecord) map[string]FileRecord {
	gone := map[string]FileRecord{}
	var goneOrder []string
	for _, r := range recs {
		if r.Status == FilePending && r.Pre.Exists && !r.Post.Exists {
			gone[r.Path] = r
			goneOrder = append(goneOrder, r.Path)
		}
	}
	out := map[string]FileRecord{}
	for _, r := range recs {
		if r.Status != FilePending || r.Pre.Exists || !r.Post.Exists {
			continue
		}
		src, ok := gone[r.RenamedFrom]
		for _, p := range goneOrder {
			if ok {
				break
			}
			if g, live := gone[p]; live && g.Pre.Identical(r.Post) {
				src, ok = g, true
			}
		}
		if ok {
			out[r.Path] = src
			delete(gone, src.Path)
		}
	}
	return out
}

// DiffFile returns the net change to one file.
func (c *Checkpoint) DiffFile(ctx context.Context, name string) (FileDiff, error) {
	rel, err := key(c.m.files, name)
	if err != nil {
		return FileDiff{}, err
	}
	c.mu.Lock()
	r, ok := c.files[rel]
	c.mu.Unlock()
	if !ok {
		return FileDiff{}, &PathError{Op: "diff", Path: rel, Err: fmt.Errorf("%w: the checkpoint did not touch this file", ErrNotFound)}
	}
	fd, err := c.fileDiff(ctx, rel, rel, r.Pre, r.Post)
	fd.Tainted = r.Tainted
	return fd, err
}

func (c *Checkpoint) fileDiff(ctx context.Context, oldPath, newPath string, before, after Image) (FileDiff, error) {
	fd := FileDiff{Path: newPath, Kind: Modified}
	switch {
	case oldPath != newPath:
		fd.Kind, fd.OldPath = Renamed, oldPath
	case !before.Exists:
		fd.Kind = Added
	case !after.Exists:
		fd.Kind = Deleted
	}
	a, err := c.content(ctx, before)
	if err != nil {
		return fd, err
	}
	b, err := c.content(ctx, after)
	if err != nil {
		return fd, err
	}
	oldLabel, newLabel := "a/"+oldPath, "b/"+newPath
	if !before.Exists {
		oldLabel = "/dev/null"
	}
	if !after.Exists {
		newLabel = "/dev/null"
	}
	d := edit.Unified(oldLabel, newLabel, a, b, ContextLines)
	fd.Unified, fd.Stats, fd.Binary = d.Unified, d.Stats, d.Binary
	if fd.Kind == Renamed && fd.Unified == "" {
		fd.Unified = fmt.Sprintf("rename from %s\nrename to %s\n", oldPath, newPath)
	}
	return fd, nil
}

// content returns an image's bytes from the store (nil when absent).
func (c *Checkpoint) content(ctx context.Context, img Image) ([]byte, error) {
	if !img.Exists {
		return nil, nil
	}
	return c.m.store.Blob(ctx, img.Hash)
}

// ChangeStat is one recorded change with its line counts.
type ChangeStat struct {
	Change
	Stats
	Binary bool
}

// Changes returns every change in order, each with its own +N −N: what
// that one tool call did to that one file.
func (c *Checkpoint) Changes(ctx context.Context) ([]ChangeStat, error) {
	changes, err := c.m.store.Changes(ctx, c.info.ID)
	if err != nil {
		return nil, err
	}
	out := make([]ChangeStat, 0, len(changes))
	for _, ch := range changes {
		before := ch.Before
		if ch.Op == OpRename && !before.Exists {
			before = ch.FromBefore // a move: count content changes only
		}
		a, err := c.content(ctx, before)
		if err != nil {
			return nil, err
		}
		b, err := c.content(ctx, ch.After)
		if err != nil {
			return nil, err
		}
		cs := ChangeStat{Change: ch}
		cs.Binary = edit.IsBinary(a) || edit.IsBinary(b)
		cs.Stats = edit.Count(a, b)
		out = append(out, cs)
	}
	return out, nil
}

// CallStats sums the changes of one tool call.
type CallStats struct {
	Call  Call     `json:"call"`
	Paths []string `json:"paths"` // files the call changed, in order
	Stats
}

// Calls returns per-tool-call totals, in the order of each call's first
// change; changes with the zero Call are grouped together.
func (c *Checkpoint) Calls(ctx context.Context) ([]CallStats, error) {
	changes, err := c.Changes(ctx)
	if err != nil {
		return nil, err
	}
	var out []CallStats
	index := map[Call]int{}
	for _, ch := range changes {
		i, ok := index[ch.Call]
		if !ok {
			i = len(out)
			index[ch.Call] = i
			out = append(out, CallStats{Call: ch.Call})
		}
		cs := &out[i]
		cs.Added += ch.Added
		cs.Removed += ch.Removed
		if !slices.Contains(cs.Paths, ch.Path) {
			cs.Paths = append(cs.Paths, ch.Path)
		}
	}
	return out, nil
}
