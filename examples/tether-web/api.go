package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
)

// maxBody bounds a POST body; a prompt with pasted code can be long.
const maxBody = 4 << 20

// decode reads a JSON body into v, refusing unknown fields so a page (or
// a person with curl) that misspells a field hears about it.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	return decodeUpTo(w, r, v, maxBody)
}

// decodeUpTo is decode with a body of up to limit bytes.
func decodeUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %s; attach fewer or smaller files", mib(int(limit))))
			return false
		}
		writeError(w, http.StatusBadRequest, fmt.Errorf("request body: want one JSON object with the fields this endpoint takes: %w", err))
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// statusOf maps the SDK's sentinel errors to HTTP statuses.
func statusOf(err error) int {
	switch {
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrOtherWorkspace), errors.Is(err, approval.ErrUnknownRequest),
		errors.Is(err, checkpoint.ErrNotFound), errors.Is(err, checkpoint.ErrStaleHunk):
		return http.StatusNotFound
	case errors.Is(err, session.ErrBusy), errors.Is(err, approval.ErrStale), errors.Is(err, checkpoint.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, errBadAnswer), errors.Is(err, errBadRequest), errors.Is(err, checkpoint.ErrInvalidPath):
		return http.StatusBadRequest
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errClosing):
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

var errBadRequest = errors.New("bad request")

// openSession opens the session a request names; a request that names
// none is told what to send.
func (s *server) openSession(ctx context.Context, id string) (*session.Session, error) {
	if id == "" {
		return nil, fmt.Errorf(`%w: "session" is required: the id of a session (GET /api/sessions lists them; POST /api/sessions makes one)`, errBadRequest)
	}
	return s.sessions.Open(ctx, id)
}

func (s *server) listSessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.sessions.List(r.Context())
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	if list == nil {
		list = []session.Info{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": list, "workspace": s.ws.Root()})
}

func (s *server) createSession(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Title string `json:"title"`
	}
	if !decode(w, r, &req) {
		return
	}
	title := strings.TrimSpace(req.Title)
	if title == "" {
		title = "New session"
	}
	sess, err := s.sessions.Create(r.Context(), title)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	info, err := sess.Info(r.Context())
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, info)
}

// events streams a session's events: its past turns first, then live.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	after, err := lastEventID(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	id := r.URL.Query().Get("session")
	l, err := s.liveLog(r.Context(), id)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	if s.board != nil {
		// Another web process on the database may run this session's
		// turn; its events reach this page from the store.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go l.follow(ctx, followEvery, s.logger)
	}
	l.stream(r.Context(), w, after, func() bool { return s.running(id) })
}

// followEvery is how often an open event stream looks for events another
// process stored: how late a card from another web process appears.
const followEvery = 250 * time.Millisecond

// promptRequest is one user turn.
type promptRequest struct {
	Session string `json:"session"`
	Text    string `json:"text"`
	Mode    string `json:"mode,omitempty"` // agent (default), explore, plan or review
	// Attachments are files the person attached (see readAttachments).
	Attachments []attachment `json:"attachments,omitempty"`
}

func (s *server) prompt(w http.ResponseWriter, r *http.Request) {
	var req promptRequest
	if !decodeUpTo(w, r, &req, maxPromptBody) {
		return
	}
	if req.Mode != "" && !slices.Contains(s.modes, req.Mode) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("mode %q: want %s", req.Mode, strings.Join(s.modes, ", ")))
		return
	}
	if strings.TrimSpace(req.Text) == "" && len(req.Attachments) == 0 {
		writeError(w, http.StatusBadRequest, errors.New(`"text" is empty: type a prompt`))
		return
	}
	texts, images, err := s.readAttachments(r.Context(), req.Attachments)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	if strings.TrimSpace(req.Text) == "" {
		// Only files, as a person may send: the model is told to look.
		req.Text = "See the attached files."
	}
	sess, err := s.openSession(r.Context(), req.Session)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	s.titleAfterFirstPrompt(r.Context(), sess, req.Text)
	if err := s.startTurn(sess, agent.Input{Prompt: req.Text, Mode: agent.Mode(req.Mode), Context: texts, Images: images}); err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "running"})
}

// titleAfterFirstPrompt names a session that has not run yet after its
// first prompt, so the session list says what each one was about. A
// failure only costs the title; it is logged.
func (s *server) titleAfterFirstPrompt(ctx context.Context, sess *session.Session, prompt string) {
	info, err := sess.Info(ctx)
	if err != nil || info.Runs > 0 {
		return
	}
	title := strings.Join(strings.Fields(prompt), " ")
	if r := []rune(title); len(r) > 60 {
		title = string(r[:59]) + "…"
	}
	if err := sess.Rename(ctx, title); err != nil {
		s.logger.Warn("web: naming the session", "session", sess.ID(), "error", err)
	}
}

func (s *server) cancel(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Session string `json:"session"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Session == "" {
		writeError(w, http.StatusBadRequest, fmt.Errorf(`%w: "session" is required: the session whose turn to stop`, errBadRequest))
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"stopped": s.stopTurn(req.Session)})
}

func (s *server) approve(w http.ResponseWriter, r *http.Request) {
	var ans answer
	if !decode(w, r, &ans) {
		return
	}
	if err := s.approvals.resolve(r.Context(), ans); err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "answered"})
}
