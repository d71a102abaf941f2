package approval

import (
	"context"
	"testing"
	"time"
)

// A Manager announces a request only once Resolve can answer it.
func TestManagerAnnouncesWhenAnswerable(t *testing.T) {
	m := &Manager{Timeout: 5 * time.Second}
	var _ Announcer = m
	announced := 0
	ctx := WithAnnounce(context.Background(), func(req Request) {
		announced++
		if err := m.Resolve(req.ID, Response{Choice: AllowOnce}); err != nil {
			t.Errorf("resolving from the announcement: %v", err)
		}
	})
	resp, err := m.Wait(ctx, Request{Kind: KindCommand, Command: "ls"})
	if err != nil || !resp.Allowed() || announced != 1 {
		t.Fatalf("Wait = %v, %v after %d announcements; want allowed after one", resp, err, announced)
	}
}
