package main

import (
	"iter"
	"sync"
)

// queue is an unbounded FIFO of jobs. It must not block the reader: a run
// waiting for an approval needs the reader to keep reading (the approve
// line may come after further prompts), so pushing never waits.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []job
	closed bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) push(j job) {
	q.mu.Lock()
	q.items = append(q.items, j)
	q.mu.Unlock()
	q.cond.Signal()
}

// close lets all() end once the queued jobs are taken.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// all yields jobs in order until the queue is closed and empty.
func (q *queue) all() iter.Seq[job] {
	return func(yield func(job) bool) {
		for {
			q.mu.Lock()
			for len(q.items) == 0 && !q.closed {
				q.cond.Wait()
			}
			if len(q.items) == 0 {
				q.mu.Unlock()
				return
			}
			j := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			if !yield(j) {
				return
			}
		}
	}
}
