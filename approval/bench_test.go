package approval

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// BenchmarkManagerRoundTrip measures one Wait answered by Resolve from the
// Notify hook: the fixed cost of the asynchronous approval path.
func BenchmarkManagerRoundTrip(b *testing.B) {
	m := &Manager{}
	m.Notify = func(e Event) {
		if e.Type == EventRequested {
			_ = m.Resolve(e.Request.ID, Response{Choice: AllowOnce})
		}
	}
	req := cmdReq("go test ./...")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Wait(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGateSessionGrant measures the common repeat case: a request
// covered by one of many session grants, logged to a discarding handler.
func BenchmarkGateSessionGrant(b *testing.B) {
	g := &Gate{Logger: slog.New(slog.DiscardHandler)}
	for i := range 100 {
		_ = g.SessionGrants().Add(Rule{Kind: KindCommand, Subject: fmt.Sprint("make target", i)})
	}
	req := Request{Kind: KindCommand, Command: "make target99", Decision: safety.Confirm}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Authorize(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPreviewApply measures staging and applying a one-line edit in a
// 2,000-line file: read, edit, diff, hash, verify, atomic write.
func BenchmarkPreviewApply(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "line %d of a reasonably long source file\n", i)
	}
	content := sb.String()
	files := &dirFiles{root: b.TempDir()}
	s := NewStager(files, StagerConfig{Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	if err := files.WriteFile("big.go", []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		old, repl := "line 1000 of", "line 1000 edited of"
		if i%2 == 1 {
			old, repl = repl, old
		}
		i++
		p, err := s.PreviewEdit(ctx, "big.go", Edit{OldText: old, NewText: repl})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Apply(ctx, p.Token); err != nil {
			b.Fatal(err)
		}
	}
}
