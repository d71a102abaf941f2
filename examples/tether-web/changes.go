package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/checkpoint"
)

// checkpointView is one checkpoint in the changes view: what the run
// changed, file by file and hunk by hunk, while it can still be undone.
type checkpointView struct {
	checkpoint.Info
	// Review is how far the review has come, as the checkpoint tells it
	// ("open", "partly decided (1 of 2 files)", "decided", "kept"…): a
	// checkpoint decided file by file or hunk by hunk stays open.
	Review  string     `json:"review"`
	Files   []fileView `json:"files"`
	Added   int        `json:"added"`
	Removed int        `json:"removed"`
}

type fileView struct {
	checkpoint.FileDiff
	Hunks []checkpoint.Hunk `json:"hunks,omitempty"`
	// WholeOnly says why the file has no hunks to decide one by one
	// (binary, deleted, moved): keep or undo it as a whole.
	WholeOnly string `json:"whole_only,omitempty"`
}

// changes lists the session's checkpoints, newest first, with the net
// change of each one that still has something to decide.
func (s *server) changes(w http.ResponseWriter, r *http.Request) {
	sess, err := s.openSession(r.Context(), r.URL.Query().Get("session"))
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	cps := sess.Executor().Checkpoints()
	infos, err := cps.List(r.Context(), sess.ID())
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	views := make([]checkpointView, 0, len(infos))
	for i := len(infos) - 1; i >= 0; i-- {
		v, err := viewOf(r.Context(), cps, infos[i])
		if err != nil {
			writeError(w, statusOf(err), err)
			return
		}
		views = append(views, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"checkpoints": views})
}

func viewOf(ctx context.Context, cps *checkpoint.Manager, info checkpoint.Info) (checkpointView, error) {
	v := checkpointView{Info: info, Review: string(info.State), Files: []fileView{}}
	if info.State != checkpoint.StateOpen {
		return v, nil
	}
	cp, err := cps.Open(ctx, info.ID)
	if err != nil {
		return v, err
	}
	v.Review = cp.Decided().String()
	d, err := cp.Diff(ctx)
	if err != nil {
		return v, err
	}
	v.Added, v.Removed = d.Added, d.Removed
	for _, fd := range d.Files {
		f := fileView{FileDiff: fd}
		hunks, err := cp.Hunks(ctx, fd.Path)
		switch {
		case err == nil:
			f.Hunks = hunks
		case errors.Is(err, checkpoint.ErrBinary), errors.Is(err, checkpoint.ErrInvalidPath), errors.Is(err, checkpoint.ErrNotFound):
			f.WholeOnly = err.Error()
		default:
			return v, err
		}
		v.Files = append(v.Files, f)
	}
	return v, nil
}

// checkpointRequest is a decision in the changes view.
type checkpointRequest struct {
	Session    string `json:"session"`
	Checkpoint string `json:"checkpoint"`
	// Action is keep or undo (the whole checkpoint), keep_file or
	// undo_file (Path), accept_hunk or reject_hunk (Path and Hunk).
	Action string `json:"action"`
	Path   string `json:"path,omitempty"`
	Hunk   string `json:"hunk,omitempty"`
	// Force undoes or rejects even over changes someone else made since
	// the agent wrote; the page asks first.
	Force bool `json:"force,omitempty"`
}

// checkpointResult reports what an undo did; Conflict says the undo
// skipped files changed since by someone else, and why.
type checkpointResult struct {
	Report   *checkpoint.UndoReport `json:"report,omitempty"`
	Conflict string                 `json:"conflict,omitempty"`
}

func (s *server) checkpointAction(w http.ResponseWriter, r *http.Request) {
	var req checkpointRequest
	if !decode(w, r, &req) {
		return
	}
	sess, err := s.openSession(r.Context(), req.Session)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	res, err := s.decide(r.Context(), sess, req)
	switch {
	case errors.Is(err, checkpoint.ErrConflict): // also *ConflictError, with the report of what was done
		res.Conflict = err.Error()
		writeJSON(w, http.StatusConflict, res)
	case err != nil:
		writeError(w, statusOf(err), err)
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

// decide applies one decision to a checkpoint of sess. Whole-checkpoint
// keep and undo go through the executor, which logs them.
func (s *server) decide(ctx context.Context, sess *session.Session, req checkpointRequest) (checkpointResult, error) {
	x := sess.Executor()
	cp, err := x.Checkpoints().Open(ctx, req.Checkpoint)
	if err != nil {
		return checkpointResult{}, err
	}
	if cp.Info().Session != sess.ID() {
		// Ids are unguessable, but a page only acts on its own session.
		return checkpointResult{}, fmt.Errorf("%w: checkpoint %s is not in session %s", checkpoint.ErrNotFound, req.Checkpoint, sess.ID())
	}
	needPath := func() error {
		if req.Path == "" {
			return fmt.Errorf(`%w: %s needs "path"`, errBadRequest, req.Action)
		}
		return nil
	}
	opts := checkpoint.UndoOptions{Force: req.Force}
	var rep checkpoint.UndoReport
	switch req.Action {
	case "keep":
		err = x.Keep(ctx, req.Checkpoint)
	case "undo":
		rep, err = x.Undo(ctx, req.Checkpoint, opts)
	case "keep_file":
		if err = needPath(); err == nil {
			err = cp.KeepFile(ctx, req.Path)
		}
	case "undo_file":
		if err = needPath(); err == nil {
			rep, err = cp.UndoFile(ctx, req.Path, opts)
		}
	case "accept_hunk", "reject_hunk":
		if err = needPath(); err == nil && req.Hunk == "" {
			err = fmt.Errorf(`%w: %s needs "hunk"`, errBadRequest, req.Action)
		}
		if err == nil && req.Action == "accept_hunk" {
			err = cp.AcceptHunk(ctx, req.Path, req.Hunk)
		} else if err == nil {
			err = cp.RejectHunk(ctx, req.Path, req.Hunk, opts)
		}
	default:
		return checkpointResult{}, fmt.Errorf("%w: action %q: want keep, undo, keep_file, undo_file, accept_hunk or reject_hunk", errBadRequest, req.Action)
	}
	res := checkpointResult{}
	if req.Action == "undo" || req.Action == "undo_file" {
		res.Report = &rep
	}
	if err == nil {
		s.logger.Info("web: checkpoint decision", "session", sess.ID(), "checkpoint", req.Checkpoint, "action", req.Action, "path", req.Path, "hunk", req.Hunk)
	}
	return res, err
}
