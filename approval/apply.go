package approval

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/tetherdev/tether/safety"
)

// Applied reports a change Apply wrote.
type Applied struct {
	Path     string    `json:"path"` // as the preview named it
	Rel      string    `json:"rel"`
	Resolved string    `json:"resolved"`
	Created  bool      `json:"created"`
	Stats    DiffStats `json:"stats"`
	Bytes    int       `json:"bytes"`
}

// Apply writes the change staged under token. The token is consumed by the
// attempt, whether or not it succeeds: a refused token must be previewed
// again, so nobody can retry it against a file that keeps changing.
//
// Apply only writes paths the workspace allows outright. A change to a path
// that needs confirmation (Preview.Decision is Confirm, e.g. a sensitive
// file) fails with ErrApprovalRequired and the token stays live: authorise
// Preview.Request with a Gate and call ApplyApproved.
//
// Apply refuses, writing nothing, when the token is unknown (ErrTokenUnknown),
// used (ErrTokenUsed), expired (ErrTokenExpired), the path may no longer be
// written (ErrPathDenied), or the file is not the one previewed
// (ErrFileChanged, as a *ChangedError): its path resolves elsewhere, it was
// replaced by another file (device or inode differ), deleted, created, or its
// mode or content changed.
func (s *Stager) Apply(ctx context.Context, token string) (Applied, error) {
	return s.apply(ctx, token, false)
}

// ApplyApproved applies the staged change a Gate approved. It refuses an
// Approved that is not valid, not a file edit, carries no token, names a
// different file than the token is bound to, or was judged with a laxer
// safety decision than the workspace gives the path, so the approval that
// was shown is the only one that can write.
func (s *Stager) ApplyApproved(ctx context.Context, a Approved) (Applied, error) {
	req := a.Request()
	switch {
	case !a.Valid():
		return Applied{}, fmt.Errorf("%w: not an approved request", ErrDenied)
	case req.Kind != KindFileEdit || req.Token == "":
		return Applied{}, fmt.Errorf("%w: approved request is a %s without a change token", ErrInvalidRequest, req.Kind)
	}
	if err := s.ValidateToken(req.Token, req.Path); err != nil {
		return Applied{}, err
	}
	p, err := s.Lookup(req.Token)
	if err != nil {
		return Applied{}, err
	}
	if req.Decision < p.Decision {
		return Applied{}, fmt.Errorf("%w: the change was approved as %q but writing %s is %q; authorise Preview.Request instead",
			ErrApprovalRequired, req.Decision, Escape(p.Rel), p.Decision)
	}
	return s.apply(ctx, req.Token, true)
}

func (s *Stager) apply(ctx context.Context, token string, approved bool) (Applied, error) {
	if err := ctx.Err(); err != nil {
		return Applied{}, err
	}
	st, err := s.take(token, approved)
	if err != nil {
		s.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "approval: apply refused", slog.String("token", Escape(token)), slog.String("reason", err.Error()))
		return Applied{}, err
	}
	p := st.preview

	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if err := s.verify(st, approved); err != nil {
		s.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "approval: apply refused", slog.String("path", Escape(p.Rel)), slog.String("reason", err.Error()))
		return Applied{}, err
	}
	if err := ctx.Err(); err != nil {
		return Applied{}, err
	}
	if s.cfg.BeforeWrite != nil {
		if err := s.cfg.BeforeWrite(ctx, p); err != nil {
			s.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "approval: apply stopped before writing", slog.String("path", Escape(p.Rel)), slog.String("error", err.Error()))
			return Applied{}, fmt.Errorf("approval: not writing %s: %w", p.Rel, err)
		}
	}
	if err := s.files.WriteFile(p.Resolved, st.content, st.perm); err != nil {
		s.cfg.Logger.LogAttrs(ctx, slog.LevelError, "approval: apply failed", slog.String("path", Escape(p.Rel)), slog.String("error", err.Error()))
		return Applied{}, fmt.Errorf("approval: write %s: %w", p.Rel, err)
	}
	s.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "approval: change applied",
		slog.String("path", Escape(p.Rel)), slog.Bool("created", p.Created), slog.Bool("approved", approved),
		slog.Int("added", p.Stats.Added), slog.Int("removed", p.Stats.Removed))
	return Applied{Path: p.Path, Rel: p.Rel, Resolved: p.Resolved, Created: p.Created, Stats: p.Stats, Bytes: len(st.content)}, nil
}

// ValidateToken reports whether token is live, bound to path (its resolved,
// relative or original form) and its file unchanged since the preview,
// without consuming it. It implements TokenValidator for the Headless policy.
func (s *Stager) ValidateToken(token, path string) error {
	s.mu.Lock()
	s.sweepLocked()
	st, ok := s.staged[token]
	var why error
	if !ok {
		why = s.tokenErrorLocked(token)
	}
	s.mu.Unlock()
	if why != nil {
		return why
	}
	p := st.preview
	if path != p.Resolved && path != p.Rel && path != p.Path {
		return fmt.Errorf("%w: token is bound to %s, not %s", ErrTokenUnknown, quoteDisplay(p.Rel), quoteDisplay(path))
	}
	return s.verify(st, true)
}

// Lookup returns the preview staged under token, without consuming it.
func (s *Stager) Lookup(token string) (Preview, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	if st, ok := s.staged[token]; ok {
		return st.preview, nil
	}
	return Preview{}, s.tokenErrorLocked(token)
}

// Discard drops a staged change and reports whether it was live.
func (s *Stager) Discard(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.staged[token]; !ok {
		return false
	}
	s.finishLocked(token, fmt.Errorf("%w: discarded", ErrTokenUsed))
	return true
}

// Staged returns the live previews, oldest first.
func (s *Stager) Staged() []Preview {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	out := make([]Preview, 0, len(s.order))
	for _, tok := range s.order {
		out = append(out, s.staged[tok].preview)
	}
	return out
}

// take removes a live token, so that exactly one Apply can use it. A token
// that needs approval it does not have is left live.
func (s *Stager) take(token string, approved bool) (*staged, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	st, ok := s.staged[token]
	if !ok {
		return nil, s.tokenErrorLocked(token)
	}
	if !approved && st.preview.Decision != safety.Allow {
		return nil, approvalRequired(st.preview.Rel, st.preview.Decision, st.preview.Reason)
	}
	s.finishLocked(token, ErrTokenUsed)
	return st, nil
}

func (s *Stager) tokenErrorLocked(token string) error {
	if why := s.done.lookup(token); why != nil {
		return fmt.Errorf("%w; preview the change again", why)
	}
	return fmt.Errorf("%w %s; use the token returned by the preview", ErrTokenUnknown, quoteDisplay(token))
}

func approvalRequired(rel string, d safety.Decision, reason string) error {
	return fmt.Errorf("%w: writing %s is %q (%s); authorise Preview.Request with a Gate and call ApplyApproved",
		ErrApprovalRequired, Escape(rel), d, reason)
}

// verify checks that the file is still the one previewed and, unless the
// change was approved, that the workspace still allows writing it outright.
func (s *Stager) verify(st *staged, approved bool) error {
	p := st.preview
	chk := s.files.Check(p.Path, safety.OpWrite)
	if chk.Decision == safety.Deny {
		return fmt.Errorf("%w: %s: %s", ErrPathDenied, Escape(p.Rel), chk.Reason)
	}
	if !approved && chk.Decision != safety.Allow {
		return approvalRequired(p.Rel, chk.Decision, chk.Reason)
	}
	if chk.Resolved != p.Resolved {
		return &ChangedError{Path: p.Rel, What: "the path now resolves to " + quoteDisplay(chk.Resolved)}
	}
	now, err := s.state(p.Resolved, p.Rel, false)
	if err != nil {
		return &ChangedError{Path: p.Rel, What: err.Error()}
	}
	was := st.before
	switch {
	case was.exists && !now.exists:
		return &ChangedError{Path: p.Rel, What: "deleted"}
	case !was.exists && now.exists:
		return &ChangedError{Path: p.Rel, What: "created by someone else"}
	case !was.exists:
		return nil
	case !os.SameFile(was.info, now.info):
		return &ChangedError{Path: p.Rel, What: "replaced by a different file"}
	case was.mode != now.mode:
		return &ChangedError{Path: p.Rel, What: fmt.Sprintf("mode %v became %v", was.mode, now.mode)}
	case !bytes.Equal(was.hash[:], now.hash[:]):
		return &ChangedError{Path: p.Rel, What: "content"}
	}
	return nil
}
