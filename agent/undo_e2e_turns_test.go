package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/sqlitestore"
)

// threeTurns runs three turns on one session: each edits a.txt and
// creates its own file. It returns the runs' results and the workspace
// before each turn (index 3: after the last).
func threeTurns(t *testing.T, s *undoSession) ([]*Result, []map[string]treeEntry) {
	trees := []map[string]treeEntry{readTree(t, s.dir)}
	var results []*Result
	for i, word := range []string{"one", "two", "three"} {
		res := s.turn([]modelCall{editCall("a.txt", []string{"zero", "one", "two"}[i], word), write(word+".txt", word+"\n")})
		assert.Equal(t, []string{"a.txt", word + ".txt"}, changedPaths(res), "turn %d files_changed", i+1)
		results = append(results, res)
		trees = append(trees, readTree(t, s.dir))
	}
	return results, trees
}

func TestUndoAcrossTurns(t *testing.T) {
	ctx := context.Background()
	seed := map[string]seedFile{"a.txt": {data: "zero\n"}}

	t.Run("middle checkpoint with a later edit of the same file", func(t *testing.T) {
		s := newUndoSession(t, seed, nil)
		res, trees := threeTurns(t, s)
		rep, err := s.undo(res[1].CheckpointID, checkpoint.UndoOptions{})
		// a.txt was changed again by turn three: undoing turn two must not
		// throw that away; two.txt is turn two's alone.
		var conflict *checkpoint.ConflictError
		require.ErrorAs(t, err, &conflict)
		assert.Equal(t, []string{"a.txt"}, skippedPaths(rep))
		assert.Equal(t, []string{"two.txt"}, rep.Removed)
		assert.Empty(t, rep.Restored)
		assert.Equal(t, "three\n", s.read("a.txt"))
		assert.False(t, s.exists("two.txt"))
		// Newest first, every turn undoes cleanly; turn two now restores
		// a.txt, which turn three's undo gave back to it.
		for i := 2; i >= 0; i-- {
			_, err := s.undo(res[i].CheckpointID, checkpoint.UndoOptions{})
			require.NoError(t, err, "turn %d", i+1)
			assert.Equal(t, []string{"zero\n", "one\n", "two\n"}[i], s.read("a.txt"), "after undoing turn %d", i+1)
		}
		requireSameTree(t, trees[0], readTree(t, s.dir), "after undoing every turn")
	})

	t.Run("middle checkpoint of separate files", func(t *testing.T) {
		s := newUndoSession(t, map[string]seedFile{"x.txt": {data: "x\n"}}, nil)
		var res []*Result
		for _, f := range []string{"p.txt", "x.txt", "q.txt"} {
			res = append(res, s.turn([]modelCall{write(f, "new "+f+"\n")}))
		}
		rep, err := s.undo(res[1].CheckpointID, checkpoint.UndoOptions{})
		require.NoError(t, err)
		assert.Equal(t, []string{"x.txt"}, rep.Restored)
		assert.Empty(t, rep.Removed)
		assert.Equal(t, "x\n", s.read("x.txt"))
		assert.Equal(t, "new p.txt\n", s.read("p.txt"))
		assert.Equal(t, "new q.txt\n", s.read("q.txt"))
	})

	t.Run("undo twice", func(t *testing.T) {
		s := newUndoSession(t, seed, nil)
		before := readTree(t, s.dir)
		res := s.turn([]modelCall{editCall("a.txt", "zero", "one"), write("b.txt", "b\n")})
		_, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
		require.NoError(t, err)
		rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
		require.NoError(t, err, "undo is idempotent")
		assert.Empty(t, rep.Restored)
		assert.Empty(t, rep.Removed)
		requireSameTree(t, before, readTree(t, s.dir), "after the second undo")
	})

	t.Run("keep then undo", func(t *testing.T) {
		s := newUndoSession(t, seed, nil)
		res := s.turn([]modelCall{editCall("a.txt", "zero", "one")})
		cp, err := s.cps.Open(ctx, res.CheckpointID)
		require.NoError(t, err)
		require.NoError(t, cp.Keep(ctx))
		_, err = s.undo(res.CheckpointID, checkpoint.UndoOptions{})
		require.ErrorIs(t, err, checkpoint.ErrClosed)
		assert.Equal(t, "one\n", s.read("a.txt"), "a kept change stays")
	})

	t.Run("user edited the file afterwards", func(t *testing.T) {
		s := newUndoSession(t, seed, nil)
		res := s.turn([]modelCall{editCall("a.txt", "zero", "one"), write("b.txt", "b\n"), write("c.txt", "c\n")})
		require.NoError(t, os.WriteFile(filepath.Join(s.dir, "a.txt"), []byte("one, and the user's line\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(s.dir, "b.txt"), []byte("the user's b\n"), 0o644))
		require.NoError(t, os.Remove(filepath.Join(s.dir, "c.txt")))
		rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
		require.ErrorIs(t, err, checkpoint.ErrConflict)
		assert.Equal(t, []string{"a.txt", "b.txt"}, skippedPaths(rep))
		assert.Empty(t, rep.Restored)
		assert.Empty(t, rep.Removed)
		assert.Equal(t, []string{"c.txt"}, rep.Unchanged, "already as before the run")
		assert.Equal(t, "one, and the user's line\n", s.read("a.txt"), "never clobbered silently")
		assert.Equal(t, "the user's b\n", s.read("b.txt"))
		// After the user has seen the conflict, Force restores.
		rep, err = s.undo(res.CheckpointID, checkpoint.UndoOptions{Force: true})
		require.NoError(t, err)
		assert.Equal(t, []string{"a.txt"}, rep.Restored)
		assert.Equal(t, []string{"b.txt"}, rep.Removed)
		assert.Equal(t, "zero\n", s.read("a.txt"))
		assert.False(t, s.exists("b.txt"))
	})

	t.Run("undo since the first turn", func(t *testing.T) {
		s := newUndoSession(t, seed, nil)
		res, trees := threeTurns(t, s)
		_, err := s.cps.UndoSince(ctx, res[0].CheckpointID, checkpoint.UndoOptions{})
		require.NoError(t, err)
		requireSameTree(t, trees[0], readTree(t, s.dir), "after undoing every turn")
	})
}

func skippedPaths(rep checkpoint.UndoReport) []string {
	out := []string{}
	for _, s := range rep.Skipped {
		out = append(out, s.Path)
	}
	return sorted(out)
}

// TestUndoAfterRestart: the runs are checkpointed in SQLite; a new
// process (new workspace handle, store and executor) undoes them.
func TestUndoAfterRestart(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "checkpoints.db")
	store, err := sqlitestore.Open(ctx, db)
	require.NoError(t, err)
	s := newUndoSession(t, map[string]seedFile{"sub/a.txt": {data: "alpha\n"}, "dir/x.txt": {data: "x\n"}}, store)
	before := readTree(t, s.dir)
	first := s.turn([]modelCall{sh("cd sub"), sh("touch new.txt && sed -i 's/alpha/beta/' a.txt")})
	second := s.turn([]modelCall{sh("cd .. && rm -rf dir"), rename("sub/a.txt", "moved/a.txt", false)})
	require.NoError(t, store.Close())

	store2, err := sqlitestore.Open(ctx, db)
	require.NoError(t, err)
	defer store2.Close()
	restarted := newUndoSessionAt(t, s.dir, store2)
	cfg := restarted.config()
	cfg.Checkpoints = restarted.cps
	x, err := New(cfg)
	require.NoError(t, err)
	for _, id := range []string{second.CheckpointID, first.CheckpointID} {
		_, err := x.Undo(ctx, id, checkpoint.UndoOptions{})
		require.NoError(t, err)
	}
	requireSameTree(t, before, readTree(t, s.dir), "after undo in a new process")
}

// TestUndoStagingMode: in staging mode a rename is refused with a message
// saying why (a token holds one file's new content), and nothing moves;
// a staged write, once applied, is undone like any other.
func TestUndoStagingMode(t *testing.T) {
	s := newUndoSession(t, map[string]seedFile{"a.txt": {data: "a\n"}, "config.txt": {data: "KEY=old\n"}}, nil)
	before := readTree(t, s.dir)
	cfg := s.config()
	cfg.Approver, cfg.Checkpoints = &approver{answer: allowAll}, s.cps
	cfg.Staging = approval.NewStager(s.ws, approval.StagerConfig{Logger: quietLogger()})
	s.play([]modelCall{rename("a.txt", "b.txt", false)})
	cfg.Model = s.model
	_, err := s.run(cfg, "Take care of a.txt") // no change verb: one round is enough
	require.NoError(t, err)
	acts := s.rec.actions()
	require.NotEmpty(t, acts)
	last := acts[len(acts)-1]
	assert.Equal(t, event.StatusDenied, last.Status)
	assert.Contains(t, lastResult(s.model.Requests()[1]), "in staging mode only new file contents can be staged")
	requireSameTree(t, before, readTree(t, s.dir), "after a refused rename")

	cfg.Model, cfg.ToolCalling = stagingModel("config.txt"), ToolCallingNative
	res, err := s.run(cfg, "Set the key")
	require.NoError(t, err)
	assert.Equal(t, "KEY=new\n", s.read("config.txt"))
	assert.Equal(t, []string{"config.txt"}, changedPaths(res))
	rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"config.txt"}, rep.Restored)
	requireSameTree(t, before, readTree(t, s.dir), "after undoing the applied change")
}
