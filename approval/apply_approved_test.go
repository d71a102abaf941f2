package approval

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// A sensitive file is never written by a bare Apply: only an Approved whose
// request was judged as needing confirmation can write it.
func TestSensitiveChangeNeedsApproval(t *testing.T) {
	s, files, _ := newTestStager(t)
	ctx := context.Background()
	files.put(t, ".env", "A=1\n")
	p, err := s.PreviewWrite(ctx, ".env", []byte("A=2\n"))
	must(t, err)

	if _, err := s.Apply(ctx, p.Token); !errors.Is(err, ErrApprovalRequired) {
		t.Fatalf("bare Apply = %v, want ErrApprovalRequired", err)
	}
	must(t, s.ValidateToken(p.Token, ".env")) // still live

	// A request that understates the decision gets through a gate without
	// asking, but cannot write.
	lax := p.Request("apply_file_change")
	lax.Decision = safety.Allow
	gate := &Gate{Logger: slog.New(&recorder{})}
	forged, err := gate.Authorize(ctx, lax)
	must(t, err)
	if _, err := s.ApplyApproved(ctx, forged); !errors.Is(err, ErrApprovalRequired) {
		t.Fatalf("understated approval = %v", err)
	}

	// A request for another token's path cannot borrow this token.
	files.put(t, "b.txt", "b\n")
	other := p.Request("apply_file_change")
	other.Path = files.root + "/b.txt"
	calls := 0
	gate.Approver = answering(Response{Choice: AllowOnce}, &calls)
	a, err := gate.Authorize(ctx, other)
	must(t, err)
	if _, err := s.ApplyApproved(ctx, a); !errors.Is(err, ErrTokenUnknown) {
		t.Fatalf("token borrowed for another path: %v", err)
	}

	if files.get(t, ".env") != "A=1\n" || files.writeCount() != 0 {
		t.Fatal("written without a proper approval")
	}

	a, err = gate.Authorize(ctx, p.Request("apply_file_change"))
	must(t, err)
	if calls != 2 {
		t.Errorf("approver asked %d times, want 2", calls)
	}
	if _, err := s.ApplyApproved(ctx, a); err != nil {
		t.Fatal(err)
	}
	if files.get(t, ".env") != "A=2\n" {
		t.Error("approved change not written")
	}
}

// The caller's buffer is not the staged content: changing it after the
// preview cannot change what Apply writes.
func TestPreviewWriteCopiesContent(t *testing.T) {
	s, files, _ := newTestStager(t)
	buf := []byte("reviewed\n")
	p, err := s.PreviewWrite(context.Background(), "a.txt", buf)
	must(t, err)
	copy(buf, "injected")
	if _, err := s.Apply(context.Background(), p.Token); err != nil {
		t.Fatal(err)
	}
	if got := files.get(t, "a.txt"); got != "reviewed\n" {
		t.Errorf("wrote %q, want the previewed bytes", got)
	}
}

// BeforeWrite sees the file still as previewed (a checkpoint snapshots the
// pre-image there), and its failure stops the write.
func TestBeforeWriteHook(t *testing.T) {
	files := newDirFiles(t)
	files.put(t, "a.txt", "old\n")
	var seen string
	snapErr := errors.New("checkpoint store full")
	fail := false
	s := NewStager(files, StagerConfig{Logger: slog.New(&recorder{}), BeforeWrite: func(_ context.Context, p Preview) error {
		seen = files.get(t, p.Rel)
		if fail {
			return snapErr
		}
		return nil
	}})
	ctx := context.Background()
	p, err := s.PreviewWrite(ctx, "a.txt", []byte("new\n"))
	must(t, err)
	_, err = s.Apply(ctx, p.Token)
	must(t, err)
	if seen != "old\n" || files.get(t, "a.txt") != "new\n" {
		t.Errorf("hook saw %q, file is %q", seen, files.get(t, "a.txt"))
	}
	fail = true
	p, err = s.PreviewWrite(ctx, "a.txt", []byte("newer\n"))
	must(t, err)
	if _, err := s.Apply(ctx, p.Token); !errors.Is(err, snapErr) {
		t.Fatalf("err = %v, want the hook's error", err)
	}
	if files.get(t, "a.txt") != "new\n" {
		t.Error("written although the hook failed")
	}
}
