package pgapproval

import (
	"context"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/tetherdev/tether/approval"
)

// changes wakes every Watch when a notification arrives; the zero value
// is ready. Invariant: a channel returned by next is closed by the first
// signal after it was returned, so a watcher that takes it before reading
// the list misses no change made after that read.
type changes struct {
	mu sync.Mutex
	ch chan struct{} // nil until a watcher asks
}

func (c *changes) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

func (c *changes) signal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// Watch yields the pending requests (as Pending returns them) at once,
// then again each time the list changes, until ctx ends or the loop
// breaks: an approval page in one process sees a request registered in
// another as soon as the database announces it (LISTEN/NOTIFY), and at
// the latest after the poll interval when a notification is lost or the
// change makes no notification (a deadline passing, a worker's lease
// expiring). A failed read is yielded as an error and retried at the next
// change or poll.
func (b *Board) Watch(ctx context.Context) iter.Seq2[[]approval.Request, error] {
	return func(yield func([]approval.Request, error) bool) {
		t := time.NewTicker(b.poll)
		defer t.Stop()
		var last []approval.Request
		first := true
		for {
			changed := b.changes.next() // before the read: see the invariant
			reqs, err := b.Pending(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				if !yield(nil, err) {
					return
				}
			case first || !sameRequests(reqs, last):
				first, last = false, reqs
				if !yield(reqs, nil) {
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-changed:
			case <-t.C:
			}
		}
	}
}

// sameRequests compares two lists by id: a published request never
// changes, it is only listed or not.
func sameRequests(a, b []approval.Request) bool {
	return slices.EqualFunc(a, b, func(x, y approval.Request) bool { return x.ID == y.ID })
}
