package checkpoint

import (
	"bytes"
	"context"
	"path"
	"strconv"

	"github.com/tetherdev/tether/internal/lazyregexp"
	"github.com/tetherdev/tether/internal/procid"
)

// tornTemp matches the temporary file an atomic write makes beside its
// target before renaming it into place (safety.Workspace.WriteFile names
// them so). A process killed between the two leaves it behind. The
// current form names the writing process ("PID.START-", procid.Self);
// the older form does not.
var tornTemp = lazyregexp.New(`^\.tether-(?:([0-9]+)\.([0-9]+)-)?[0-9a-f]{16}\.tmp$`)

// removeDeadTemps deletes, in the directories of c's pending records and
// in-flight paths, the temporary files of writes whose process is gone:
// an agent's file tool, a checkpoint write or an undo killed between its
// temporary file and the rename. A temporary file of a live process (a
// write in progress elsewhere), and one whose writer cannot be told,
// stays. c.mu must be held or c not yet shared.
func (c *Checkpoint) removeDeadTemps() {
	l, ok := c.m.files.(dirLister)
	if !ok {
		return
	}
	dirs := map[string]bool{}
	for p, rec := range c.files {
		if rec.Status == FilePending {
			dirs[path.Dir(p)] = true
		}
	}
	for p := range c.inflight {
		dirs[path.Dir(p)] = true
		dirs[p] = true // a directory the call was writing in
	}
	for dir := range dirs {
		ents, err := l.ReadDir(native(dir))
		if err != nil {
			continue
		}
		for _, e := range ents {
			m := tornTemp.FindStringSubmatch(e.Name())
			if m == nil || m[1] == "" || !e.Type().IsRegular() {
				continue
			}
			pid, err := strconv.Atoi(m[1])
			if err != nil || !procid.Gone(pid, m[2]) {
				continue
			}
			p := path.Join(dir, e.Name())
			if err := c.m.files.Remove(native(p)); err == nil {
				c.m.log.Info("checkpoint: removed the temporary file of a write whose process died", "checkpoint", c.info.ID, "path", p)
			}
		}
	}
}

// removeTornTemps deletes what an interrupted write left beside its
// target: temporary files in the target's directory whose content is a
// prefix of (or equal to) the content being written. Anyone else's file,
// a temporary file of another write included, holds other bytes and
// stays.
func (c *Checkpoint) removeTornTemps(ctx context.Context, ch Change) {
	if ch.Op != OpWrite || !ch.After.Exists {
		return
	}
	l, ok := c.m.files.(dirLister)
	if !ok {
		return
	}
	dir := path.Dir(ch.Path)
	ents, err := l.ReadDir(native(dir))
	if err != nil {
		return
	}
	var want []byte
	for _, e := range ents {
		if !e.Type().IsRegular() || !tornTemp.MatchString(e.Name()) {
			continue
		}
		if want == nil {
			if want, err = c.m.store.Blob(ctx, ch.After.Hash); err != nil {
				return
			}
		}
		p := path.Join(dir, e.Name())
		fi, err := e.Info()
		if err != nil || fi.Size() > int64(len(want)) {
			continue
		}
		data, err := c.m.files.ReadFile(native(p))
		if err != nil || !bytes.HasPrefix(want, data) {
			continue
		}
		if err := c.m.files.Remove(native(p)); err == nil {
			c.m.log.Info("checkpoint: removed the temporary file of an interrupted write", "checkpoint", c.info.ID,
				"path", p, "target", ch.Path)
		}
	}
}
