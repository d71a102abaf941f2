package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
)

// TestAnswerToAnOrphanedCard: a card replayed from a turn that no longer
// runs anywhere (no shared database, not running here) is refused as
// stale, not reported answered.
func TestAnswerToAnOrphanedCard(t *testing.T) {
	a := newApprovals(time.Minute, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	a.announce(event.ApprovalRequested{ID: "req_old", Display: approval.Display{Severity: "medium"}}, true)
	err := a.resolve(context.Background(), answer{ID: "req_old", Choice: "allow_once"})
	if !errors.Is(err, approval.ErrStale) {
		t.Errorf("answer to an orphaned card: %v, want ErrStale", err)
	}
	if err := a.resolve(context.Background(), answer{ID: "req_never", Choice: "deny"}); !errors.Is(err, approval.ErrUnknownRequest) {
		t.Errorf("answer to an unknown id: %v, want ErrUnknownRequest", err)
	}
}
