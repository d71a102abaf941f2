package sqlitestore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
)

// BenchmarkSQLiteAppendEvent measures persisting one event (a text
// delta, the most frequent) through the session's own connection.
func BenchmarkSQLiteAppendEvent(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Create(ctx, session.Info{ID: "a"}); err != nil {
		b.Fatal(err)
	}
	ev := event.TextDelta{Text: strings.Repeat("word ", 8)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.AppendEvent(ctx, "a", time.Unix(1700000000, 0), ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSQLiteReplay measures reading back a 2,000-event log.
func BenchmarkSQLiteReplay(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Create(ctx, session.Info{ID: "a"}); err != nil {
		b.Fatal(err)
	}
	for range 2000 {
		if _, err := s.AppendEvent(ctx, "a", time.Unix(1700000000, 0), event.TextDelta{Text: "some streamed words"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range s.Events(ctx, "a", 0) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 2000 {
			b.Fatal(n)
		}
	}
}
