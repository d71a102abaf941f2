package approval

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// DefaultTimeout is how long a Manager waits for an answer when no Timeout is
// configured: five minutes, long enough to read a diff, short enough that an
// abandoned run does not hang.
const DefaultTimeout = 5 * time.Minute

// defaultRemember bounds how many finished request ids a Manager keeps so it
// can tell a late answer (ErrStale) from a wrong id (ErrUnknownRequest).
const defaultRemember = 1024

// EventType says what happened to a pending request.
type EventType int

const (
	EventRequested EventType = iota // a request is waiting; show it
	EventResolved                   // it has an outcome; stop showing it
)

func (t EventType) String() string {
	switch t {
	case EventRequested:
		return "approval_requested"
	case EventResolved:
		return "approval_resolved"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event reports a change in the set of pending requests to the host UI.
type Event struct {
	Type     EventType
	Request  Request
	Response Response // EventResolved only
	Err      error    // EventResolved only: ErrTimeout, the context's cause, or nil
}

// Manager is an Approver for hosts whose UI answers asynchronously: Wait (or
// Approve) blocks the agent while the UI shows the request; the UI calls
// Resolve with the request's id when the person answers.
//
// Invariants, enforced under mu: a request is in pending from the moment Wait
// registers it until exactly one of Resolve, the timeout or cancellation
// removes it; whoever removes it decides the outcome (first answer wins), and
// its id then moves to the bounded finished list so later answers get
// ErrStale. Manager starts no goroutines; every Wait returns.
//
// The zero Manager is ready to use with DefaultTimeout. Set fields before the
// first call and do not change them afterwards.
type Manager struct {
	// Timeout bounds each Wait; zero means DefaultTimeout, negative means no
	// timeout (only ctx ends the wait).
	Timeout time.Duration
	// Notify, if set, is called for every EventRequested and EventResolved,
	// synchronously and without locks held, from the goroutine calling Wait.
	// It must not block for long; it may call Resolve.
	Notify func(Event)
	// Remember is how many finished ids are kept for ErrStale; zero means 1024.
	Remember int

	mu       sync.Mutex
	pending  map[string]*pending
	seq      uint64 // arrival order of pending requests
	finished recent
}

type pending struct {
	req Request
	seq uint64
	ch  chan Response // buffered 1; written once, by the winner, under mu
}

// AnnouncesWhenAnswerable implements Announcer: Wait calls the hook of
// WithAnnounce once the request is registered and Resolve can answer it.
func (m *Manager) AnnouncesWhenAnswerable() {}

// Approve implements Approver by calling Wait.
func (m *Manager) Approve(ctx context.Context, req Request) (Response, error) {
	return m.Wait(ctx, req)
}

// Wait registers req (assigning an ID when it has none), notifies the host and
// blocks until Resolve answers it, the timeout passes or ctx is done.
//
// On timeout it returns a deny and an error matching ErrTimeout; on
// cancellation a deny and ctx's cause. The response is a deny whenever the
// error is non-nil. A req whose ID is already pending fails with
// ErrDuplicateID.
func (m *Manager) Wait(ctx context.Context, req Request) (Response, error) {
	req = req.clone()
	if err := req.validate(); err != nil {
		return Response{Reason: err.Error()}, err
	}
	if err := ctx.Err(); err != nil {
		return Response{Reason: "cancelled before asking: " + context.Cause(ctx).Error()}, context.Cause(ctx)
	}
	if req.ID == "" {
		req.ID = NewID()
	}

	timeout := m.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w (%v)", ErrTimeout, timeout))
		defer cancel()
	}

	p := &pending{req: req, ch: make(chan Response, 1)}
	m.mu.Lock()
	if m.pending == nil {
		m.pending = make(map[string]*pending)
	}
	if _, dup := m.pending[req.ID]; dup {
		m.mu.Unlock()
		err := fmt.Errorf("%w: %s", ErrDuplicateID, quoteDisplay(req.ID))
		return Response{Reason: err.Error()}, err
	}
	m.seq++
	p.seq = m.seq
	m.pending[req.ID] = p
	m.mu.Unlock()
	// If Notify panics, the request must not stay pending forever.
	defer m.abandon(req.ID, p)

	announce(ctx, req.clone())
	m.notify(Event{Type: EventRequested, Request: req.clone()})

	var (
		resp Response
		err  error
	)
	select {
	case resp = <-p.ch:
	case <-ctx.Done():
		m.mu.Lock()
		if m.pending[req.ID] == p {
			m.finishLocked(req.ID)
			m.mu.Unlock()
			err = context.Cause(ctx)
			resp = Response{Choice: Deny, Reason: "cancelled: " + err.Error()}
			if errors.Is(err, ErrTimeout) {
				resp.Reason = fmt.Sprintf("no answer within %v", timeout)
			}
		} else {
			// Resolve removed it first and has already sent (under mu): the
			// answer wins over the timeout that raced it.
			m.mu.Unlock()
			resp = <-p.ch
		}
	}
	m.notify(Event{Type: EventResolved, Request: req.clone(), Response: resp, Err: err})
	return resp, err
}

// abandon removes p if it is still pending; a no-op after a normal finish.
func (m *Manager) abandon(id string, p *pending) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending[id] == p {
		m.finishLocked(id)
	}
}

// Resolve answers the pending request with the given id. Only the first
// answer counts: a later one, or one after the timeout, returns ErrStale; an
// id that was never pending returns ErrUnknownRequest.
func (m *Manager) Resolve(id string, resp Response) error {
	if resp.Choice < Deny || resp.Choice > AllowSession {
		return fmt.Errorf("%w: unknown choice %d", ErrInvalidResponse, int(resp.Choice))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pending[id]
	if !ok {
		if m.finished.lookup(id) != nil {
			return fmt.Errorf("%w: %s", ErrStale, quoteDisplay(id))
		}
		return fmt.Errorf("%w: %s", ErrUnknownRequest, quoteDisplay(id))
	}
	m.finishLocked(id)
	p.ch <- resp // never blocks: buffered, and only the winner sends
	return nil
}

// ResolveAll answers every pending request with resp and returns how many it
// answered: for a UI that disconnects or a host shutting down, which should
// deny what nobody will now see (resp's zero value is a deny).
func (m *Manager) ResolveAll(resp Response) int {
	n := 0
	for _, req := range m.Pending() {
		if m.Resolve(req.ID, resp) == nil {
			n++
		}
	}
	return n
}

// finishLocked moves id from pending to the bounded finished list.
func (m *Manager) finishLocked(id string) {
	delete(m.pending, id)
	m.finished.limit = m.Remember
	m.finished.add(id, ErrStale)
}

// Pending returns the requests now waiting, oldest first. A UI that starts
// (or restarts) late calls it to show what it missed.
func (m *Manager) Pending() []Request {
	m.mu.Lock()
	ps := make([]*pending, 0, len(m.pending))
	for _, p := range m.pending {
		ps = append(ps, p)
	}
	m.mu.Unlock()
	slices.SortFunc(ps, func(a, b *pending) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Request, len(ps))
	for i, p := range ps {
		out[i] = p.req.clone()
	}
	return out
}

func (m *Manager) notify(e Event) {
	if m.Notify != nil {
		m.Notify(e)
	}
}

// NewID returns a random request id ("req_" and 16 hex digits).
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "req_" + hex.EncodeToString(b[:])
}
