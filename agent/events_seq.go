package agent

import (
	"context"
	"iter"

	"github.com/tetherdev/tether/agent/event"
)

// Events runs one turn like Run and yields its events as they happen,
// then, if the run failed, one final (nil, err). Config.Sink, when set,
// still receives every event first, so a host can persist through the
// sink and display through the iterator. Stopping the iteration early
// cancels the run and waits for it to wind down (a running command is
// killed, no file is left half-written).
func (e *Executor) Events(ctx context.Context, in Input) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan event.Event)
		var err error
		go func() {
			defer close(ch)
			sink := event.SinkFunc(func(ctx context.Context, ev event.Event) error {
				if sink := e.config().Sink; sink != nil {
					if err := sink.Emit(ctx, ev); err != nil {
						return err
					}
				}
				select {
				case ch <- ev:
					return nil
				case <-ctx.Done():
					return context.Cause(ctx)
				}
			})
			_, err = e.run(ctx, in, sink)
		}()
		for ev := range ch {
			if !yield(ev, nil) {
				cancel()
				for range ch {
				}
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}
