package checkpoint

import (
	"bytes"
	"context"
	"path"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// tornTemp matches the temporary file an atomic write makes beside its
// target before renaming it into place (safety.Workspace.WriteFile names
// them so). A process killed between the two leaves it behind.
var tornTemp = lazyregexp.New(`^\.tether-[0-9a-f]{16}\.tmp$`)

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
