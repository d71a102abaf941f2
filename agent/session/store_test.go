package session

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
)

// stores runs a test against both implementations.
func stores(t *testing.T, test func(t *testing.T, s Store)) {
	t.Run("memory", func(t *testing.T) { test(t, NewMemoryStore()) })
	t.Run("sqlite", func(t *testing.T) {
		s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "tether.db"))
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		test(t, s)
	})
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestStoreContract(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		require.NoError(t, s.Create(ctx, Info{ID: "a", Title: "First", Workspace: "/src/shop", Created: t0, Updated: t0}))
		require.NoError(t, s.Create(ctx, Info{ID: "b", Title: "Second", Created: t0, Updated: t0.Add(time.Minute)}))
		require.ErrorIs(t, s.Create(ctx, Info{ID: "a"}), ErrExists)
		_, err := s.Info(ctx, "zzz")
		require.ErrorIs(t, err, ErrNotFound)

		list, err := s.List(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"b", "a"}, []string{list[0].ID, list[1].ID}, "most recently updated first")

		st := State{
			Messages: []llm.Message{
				{Role: llm.RoleUser, Content: "hi", Images: []llm.Image{{MIMEType: "image/png", Data: []byte{0, 1, 2}}}},
				{Role: llm.RoleAssistant, Thinking: "hmm", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
				{Role: llm.RoleTool, ToolName: "read_file", ToolCallID: "c1", Content: "package a"},
			},
			Memory: &agent.Memory{FilesRead: []string{"a.go"}, Plan: []agent.TodoItem{{Text: "x", Status: agent.TodoDone}}},
		}
		require.NoError(t, s.SaveState(ctx, "a", st, 1, t0.Add(2*time.Minute)))
		got, err := s.State(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, st, got)
		info, err := s.Info(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, 1, info.Runs)
		require.Equal(t, "/src/shop", info.Workspace)
		require.True(t, info.Updated.Equal(t0.Add(2*time.Minute)))
		list, _ = s.List(ctx)
		require.Equal(t, "a", list[0].ID)

		// A shorter state replaces the longer one entirely.
		require.NoError(t, s.SaveState(ctx, "a", State{Messages: st.Messages[:1]}, 0, t0))
		got, _ = s.State(ctx, "a")
		require.Len(t, got.Messages, 1)
		require.Nil(t, got.Memory)
		require.ErrorIs(t, s.SaveState(ctx, "zzz", st, 1, t0), ErrNotFound)

		// Events keep their order and types.
		for _, ev := range []agent.Event{agent.RunStarted{RunID: "r1", Prompt: "hi"}, agent.TextDelta{Text: "Hello"}, agent.RunFinished{StopReason: agent.StopCompleted}} {
			_, err := s.AppendEvent(ctx, "a", t0, ev)
			require.NoError(t, err)
		}
		seq, err := s.AppendEvent(ctx, "b", t0, agent.TextDelta{Text: "other"})
		require.NoError(t, err)
		require.Equal(t, int64(1), seq, "each session numbers its own events")
		var evs []agent.Event
		for se, err := range s.Events(ctx, "a", 1) {
			require.NoError(t, err)
			evs = append(evs, se.Event)
		}
		require.Equal(t, []agent.Event{agent.TextDelta{Text: "Hello"}, agent.RunFinished{StopReason: agent.StopCompleted}}, evs)
		_, err = s.AppendEvent(ctx, "zzz", t0, agent.TextDelta{})
		require.ErrorIs(t, err, ErrNotFound)

		require.NoError(t, s.Rename(ctx, "a", "Renamed"))
		info, _ = s.Info(ctx, "a")
		require.Equal(t, "Renamed", info.Title)
		require.ErrorIs(t, s.Rename(ctx, "zzz", "x"), ErrNotFound)

		require.NoError(t, s.Delete(ctx, "a"))
		require.ErrorIs(t, s.Delete(ctx, "a"), ErrNotFound)
		for _, err := range s.Events(ctx, "a", 0) {
			require.ErrorIs(t, err, ErrNotFound)
		}
		list, _ = s.List(ctx)
		require.Len(t, list, 1)
	})
}

// TestSQLiteEventPaging reads a log longer than one page.
func TestSQLiteEventPaging(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "t.db"))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Create(ctx, Info{ID: "a"}))
	for i := range eventPage*2 + 3 {
		_, err := s.AppendEvent(ctx, "a", t0, agent.TextDelta{Text: string(rune('a' + i%26))})
		require.NoError(t, err)
	}
	n := int64(0)
	for se, err := range s.Events(ctx, "a", 0) {
		require.NoError(t, err)
		n++
		require.Equal(t, n, se.Seq)
	}
	require.Equal(t, int64(eventPage*2+3), n)
}

// TestSharedDatabase: sessions and checkpoints live in one SQLite file,
// through two connections, each with its own schema version.
func TestSharedDatabase(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "tether.db")
	cps, err := checkpoint.OpenSQLite(ctx, db)
	require.NoError(t, err)
	defer cps.Close()
	ss, err := OpenSQLite(ctx, db)
	require.NoError(t, err)
	require.NoError(t, cps.Create(ctx, checkpoint.Info{ID: "cp1", Session: "ses_1", Label: "x", Created: t0, State: "open"}))
	require.NoError(t, ss.Create(ctx, Info{ID: "ses_1", Created: t0, Updated: t0}))
	v, err := ss.SchemaVersion(ctx)
	require.NoError(t, err)
	require.Equal(t, len(migrations), v)
	require.NoError(t, ss.Close())

	// Reopening both (a new process) finds both.
	ss, err = OpenSQLite(ctx, db)
	require.NoError(t, err)
	defer ss.Close()
	_, err = ss.Info(ctx, "ses_1")
	require.NoError(t, err)
	cps2, err := checkpoint.OpenSQLite(ctx, db)
	require.NoError(t, err)
	defer cps2.Close()
	info, err := cps2.Info(ctx, "cp1")
	require.NoError(t, err)
	require.Equal(t, "ses_1", info.Session)
}
