package pgapproval_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/approval/pgapproval"
	"github.com/tetherdev/tether/internal/pgtest"
)

// listening are the two ways a board learns of changes: notifications
// with the poll as a fallback, or the (default, 1 s) poll alone.
var listening = []struct {
	name string
	opts []pgapproval.Option
}{
	{"notify", nil},
	{"poll-only", []pgapproval.Option{pgapproval.WithoutListen()}},
}

func benchBoard(b *testing.B, dsn string, opts ...pgapproval.Option) *pgapproval.Board {
	board, err := pgapproval.Open(context.Background(), dsn, opts...)
	require.NoError(b, err)
	b.Cleanup(func() { board.Close() })
	return board
}

// BenchmarkAnswerLatency: from a UI board's Resolve to the worker's
// Approve returning with that answer (ns/op is the latency).
func BenchmarkAnswerLatency(b *testing.B) {
	for _, l := range listening {
		b.Run(l.name, func(b *testing.B) {
			ctx := context.Background()
			dsn := pgtest.Database(b)
			worker, ui := benchBoard(b, dsn, l.opts...), benchBoard(b, dsn)
			a := worker.Approver(&approval.Manager{Timeout: time.Minute})
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				id := fmt.Sprintf("req_%d", i)
				done := ask(ctx, a, command(id, "make"))
				waitPending(b, ui, id)
				b.StartTimer()
				require.NoError(b, ui.Resolve(ctx, id, approval.Response{Choice: approval.AllowOnce}))
				require.NoError(b, (<-done).err)
			}
		})
	}
}

// BenchmarkWatchLatency: from a worker registering a request to an
// approval page's Watch, in another board, yielding it (ns/op).
func BenchmarkWatchLatency(b *testing.B) {
	for _, l := range listening {
		b.Run(l.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dsn := pgtest.Database(b)
			worker, ui := benchBoard(b, dsn), benchBoard(b, dsn, l.opts...)
			a := worker.Approver(&approval.Manager{Timeout: time.Minute})
			lists := make(chan int, 1)
			go func() {
				for reqs, err := range ui.Watch(ctx) {
					if err == nil {
						lists <- len(reqs)
					}
				}
			}()
			require.Equal(b, 0, <-lists)
			b.ResetTimer()
			for i := range b.N {
				id := fmt.Sprintf("req_%d", i)
				done := ask(ctx, a, command(id, "make"))
				require.Equal(b, 1, <-lists)
				b.StopTimer()
				require.NoError(b, ui.Resolve(ctx, id, approval.Response{Choice: approval.AllowOnce}))
				require.Equal(b, 0, <-lists)
				<-done
				b.StartTimer()
			}
		})
	}
}
