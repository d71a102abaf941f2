package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/llm"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// Session is the conformance suite every session.Store passes: open
// returns a fresh, empty store, which the caller closes (t.Cleanup).
func Session(t *testing.T, open func(t *testing.T) session.Store) {
	t.Helper()
	t.Run("contract", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		require.NoError(t, s.Create(ctx, session.Info{ID: "a", Title: "First", Workspace: "/src/shop", Created: t0, Updated: t0}))
		require.NoError(t, s.Create(ctx, session.Info{ID: "b", Title: "Second", Created: t0, Updated: t0.Add(time.Minute)}))
		require.ErrorIs(t, s.Create(ctx, session.Info{ID: "a"}), session.ErrExists)
		_, err := s.Info(ctx, "zzz")
		require.ErrorIs(t, err, session.ErrNotFound)

		list, err := s.List(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"b", "a"}, []string{list[0].ID, list[1].ID}, "most recently updated first")

		st := session.State{
			Messages: []llm.Message{
				{Role: llm.RoleUser, Content: "hi", Images: []llm.Image{{MIMEType: "image/png", Data: []byte{0, 1, 2}}}},
				{Role: llm.RoleAssistant, Thinking: "hmm", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
				{Role: llm.RoleTool, ToolName: "read_file", ToolCallID: "c1", Content: "package a"},
			},
			Memory: &agent.Memory{FilesRead: []string{"a.go"}, Plan: []event.TodoItem{{Text: "x", Status: event.TodoDone}}},
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
		require.NoError(t, s.SaveState(ctx, "a", session.State{Messages: st.Messages[:1]}, 0, t0))
		got, _ = s.State(ctx, "a")
		require.Len(t, got.Messages, 1)
		require.Nil(t, got.Memory)
		require.ErrorIs(t, s.SaveState(ctx, "zzz", st, 1, t0), session.ErrNotFound)

		// Events keep their order and types.
		for _, ev := range []event.Event{event.RunStarted{RunID: "r1", Prompt: "hi"}, event.TextDelta{Text: "Hello"}, event.RunFinished{StopReason: event.StopCompleted}} {
			_, err := s.AppendEvent(ctx, "a", t0, ev)
			require.NoError(t, err)
		}
		seq, err := s.AppendEvent(ctx, "b", t0, event.TextDelta{Text: "other"})
		require.NoError(t, err)
		require.Equal(t, int64(1), seq, "each session numbers its own events")
		var evs []event.Event
		for se, err := range s.Events(ctx, "a", 1) {
			require.NoError(t, err)
			evs = append(evs, se.Event)
		}
		require.Equal(t, []event.Event{event.TextDelta{Text: "Hello"}, event.RunFinished{StopReason: event.StopCompleted}}, evs)
		_, err = s.AppendEvent(ctx, "zzz", t0, event.TextDelta{})
		require.ErrorIs(t, err, session.ErrNotFound)

		require.NoError(t, s.Rename(ctx, "a", "Renamed"))
		info, _ = s.Info(ctx, "a")
		require.Equal(t, "Renamed", info.Title)
		require.ErrorIs(t, s.Rename(ctx, "zzz", "x"), session.ErrNotFound)

		require.NoError(t, s.Delete(ctx, "a"))
		require.ErrorIs(t, s.Delete(ctx, "a"), session.ErrNotFound)
		for _, err := range s.Events(ctx, "a", 0) {
			require.ErrorIs(t, err, session.ErrNotFound)
		}
		list, _ = s.List(ctx)
		require.Len(t, list, 1)
	})
	t.Run("lease", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		require.NoError(t, s.Create(ctx, session.Info{ID: "a", Created: t0, Updated: t0}))
		require.ErrorIs(t, s.Lease(ctx, "zzz", "w1", t0, t0.Add(time.Minute)), session.ErrNotFound)
		require.NoError(t, s.Lease(ctx, "a", "w1", t0, t0.Add(time.Minute)))
		require.NoError(t, s.Lease(ctx, "a", "w1", t0.Add(time.Second), t0.Add(2*time.Minute)), "the holder renews")
		err := s.Lease(ctx, "a", "w2", t0.Add(time.Minute), t0.Add(3*time.Minute))
		require.ErrorIs(t, err, session.ErrBusy, "another worker is refused while the lease runs")
		var le *session.LeaseError
		require.ErrorAs(t, err, &le)
		require.Equal(t, "w1", le.Owner)
		require.True(t, le.Until.Equal(t0.Add(2*time.Minute)), "until = %v", le.Until)
		require.NoError(t, s.Release(ctx, "a", "w2"), "releasing another's lease is a no-op")
		require.ErrorIs(t, s.Lease(ctx, "a", "w2", t0.Add(time.Minute), t0.Add(3*time.Minute)), session.ErrBusy)
		require.NoError(t, s.Lease(ctx, "a", "w2", t0.Add(2*time.Minute), t0.Add(3*time.Minute)), "an expired lease is taken over")
		require.NoError(t, s.Release(ctx, "a", "w2"))
		require.NoError(t, s.Lease(ctx, "a", "w1", t0, t0.Add(time.Minute)), "a released session is free")

		// Racing workers: exactly one wins.
		require.NoError(t, s.Create(ctx, session.Info{ID: "race", Created: t0, Updated: t0}))
		var wg sync.WaitGroup
		var won atomic.Int32
		for i := range 8 {
			wg.Go(func() {
				err := s.Lease(ctx, "race", fmt.Sprint("w", i), t0, t0.Add(time.Minute))
				if err == nil {
					won.Add(1)
				} else if !errors.Is(err, session.ErrBusy) {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		require.Equal(t, int32(1), won.Load())
	})

	t.Run("mid-turn state", func(t *testing.T) { midTurnState(t, open(t)) })
	t.Run("concurrent appends", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		require.NoError(t, s.Create(ctx, session.Info{ID: "a", Created: t0, Updated: t0}))
		const writers, each = 4, 25
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for range each {
					if _, err := s.AppendEvent(ctx, "a", t0, event.TextDelta{Text: "x"}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		n := int64(0)
		for se, err := range s.Events(ctx, "a", 0) {
			require.NoError(t, err)
			n++
			require.Equal(t, n, se.Seq, "sequence numbers are dense and ordered")
		}
		require.Equal(t, int64(writers*each), n)
	})
}
