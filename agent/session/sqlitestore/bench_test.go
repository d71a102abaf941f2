package sqlitestore

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/llm"
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

// BenchmarkSQLiteSaveState measures one save of a 40-message conversation
// (about 80 KB of JSON): what a turn pays before each model call after
// the first, so that a worker killed mid-turn loses no iteration.
func BenchmarkSQLiteSaveState(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Create(ctx, session.Info{ID: "a"}); err != nil {
		b.Fatal(err)
	}
	var st session.State
	for i := range 40 {
		st.Messages = append(st.Messages, llm.Message{Role: llm.RoleTool, ToolName: "read_file", ToolCallID: fmt.Sprint("c", i),
			Content: strings.Repeat("some file content, line by line\n", 64)})
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.SaveState(ctx, "a", st, 0, time.Unix(1700000000, 0)); err != nil {
			b.Fatal(err)
		}
	}
}
