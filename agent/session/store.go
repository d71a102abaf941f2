package session

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNotFound: no session with that id.
	ErrNotFound = errors.New("session: not found")
	// ErrExists: a session with that id already exists.
	ErrExists = errors.New("session: already exists")
	// ErrBusy: the session is running a turn; wait for it to finish.
	ErrBusy = errors.New("session: a turn is already running in this session; wait for it to finish")
	// ErrSchemaTooNew: the database was written by a newer Tether.
	ErrSchemaTooNew = errors.New("session: store schema is newer than this program understands")
	// ErrOtherWorkspace: the session belongs to another workspace.
	ErrOtherWorkspace = errors.New("session: the session belongs to another workspace")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("session: store is closed")
)

// Info describes a session, for a list a user picks from.
type Info struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Workspace is the root directory the session works in; "" when it
	// has none. A Manager lists and opens only its own workspace's
	// sessions, so a shared database never resumes one in the wrong tree.
	Workspace string `json:"workspace,omitempty"`
	// Runs counts the turns run in the session.
	Runs    int       `json:"runs"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// State is what a session carries from one turn to the next: the
// conversation (without system messages) and the session memory.
type State struct {
	Messages []llm.Message `json:"messages"`
	Memory   *agent.Memory `json:"memory,omitempty"`
}

// StoredEvent is one persisted event with its place in the session.
type StoredEvent struct {
	// Seq numbers the session's events from 1, in emission order.
	Seq   int64
	Time  time.Time
	Event event.Event
}

// Store persists sessions: their info, state and event log. The
// implementations ([MemoryStore] here; sqlitestore and pgstore in
// sub-packages) are safe for concurrent use and pass one conformance
// suite.
//
// Invariants: SaveState replaces the state and updates Info.Updated and
// Info.Runs in one transaction; an event once appended is never
// rewritten; Delete removes the session, its state and its events.
type Store interface {
	Create(ctx context.Context, info Info) error
	Info(ctx context.Context, id string) (Info, error)
	// List returns every session, most recently updated first.
	List(ctx context.Context) ([]Info, error)
	Delete(ctx context.Context, id string) error
	// Rename sets the session's title.
	Rename(ctx context.Context, id, title string) error

	// SaveState stores the state after a turn; runs is added to Info.Runs.
	SaveState(ctx context.Context, id string, st State, runs int, now time.Time) error
	State(ctx context.Context, id string) (State, error)

	// AppendEvent stores one event under the next sequence number and
	// returns it.
	AppendEvent(ctx context.Context, id string, at time.Time, ev event.Event) (int64, error)
	// Events yields the events with Seq > after, in order. An event that
	// cannot be decoded (written by a newer Tether) is yielded as an
	// error, and the iteration goes on.
	Events(ctx context.Context, id string, after int64) iter.Seq2[StoredEvent, error]

	// Lease claims the session for owner until the given time, so that
	// two workers (goroutines, processes or machines sharing the store)
	// never run turns in one session at once. It succeeds when nobody
	// holds the session, when the holder's lease ended before now (a
	// worker that died), or when owner holds it already (renewal). Else it
	// fails with a *LeaseError matching ErrBusy.
	Lease(ctx context.Context, id, owner string, now, until time.Time) error
	// Release gives up owner's lease on the session; releasing a lease
	// one does not hold is a no-op.
	Release(ctx context.Context, id, owner string) error
}

// LeaseError reports a session leased by another worker. It matches
// ErrBusy with errors.Is.
type LeaseError struct {
	Session string
	Owner   string    // the worker holding the session
	Until   time.Time // when its lease ends unless it renews it
}

func (e *LeaseError) Error() string {
	return fmt.Sprintf("session %q: worker %q is running a turn in it (lease until %s); wait for it to finish, or for the lease to expire if that worker died",
		e.Session, e.Owner, e.Until.Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *LeaseError) Is(target error) bool { return target == ErrBusy }
