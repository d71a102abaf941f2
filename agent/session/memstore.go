package session

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent/event"
)

// MemoryStore keeps sessions in memory, for tests and for hosts that do
// not resume after a restart. Events are kept in their JSON form, so
// what a test reads back went through the same encoding as SQLite's.
// The zero value is ready to use.
type MemoryStore struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	closed   bool
}

type memSession struct {
	info   Info
	lease  memLease
	state  []byte // State as JSON: a deep copy by construction
	events []memEvent
}

type memLease struct {
	owner string
	until time.Time
}

type memEvent struct {
	at   time.Time
	data []byte
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

func (s *MemoryStore) get(id string) (*memSession, error) {
	if s.closed {
		return nil, ErrClosed
	}
	ms, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return ms, nil
}

func (s *MemoryStore) Create(_ context.Context, info Info) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if info.ID == "" {
		return fmt.Errorf("session: create: empty id")
	}
	if _, ok := s.sessions[info.ID]; ok {
		return fmt.Errorf("session %q: %w", info.ID, ErrExists)
	}
	if s.sessions == nil {
		s.sessions = map[string]*memSession{}
	}
	s.sessions[info.ID] = &memSession{info: info}
	return nil
}

func (s *MemoryStore) Info(_ context.Context, id string) (Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.get(id)
	if err != nil {
		return Info{}, err
	}
	return ms.info, nil
}

func (s *MemoryStore) List(context.Context) ([]Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	out := make([]Info, 0, len(s.sessions))
	for _, ms := range s.sessions {
		out = append(out, ms.info)
	}
	sortInfos(out)
	return out, nil
}

// sortInfos orders most recently updated first, then by id, so that
// both stores list the same way.
func sortInfos(s []Info) {
	slices.SortFunc(s, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
}

func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.get(id); err != nil {
		return err
	}
	delete(s.sessions, id)
	return nil
}

func (s *MemoryStore) Rename(_ context.Context, id, title string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.get(id)
	if err != nil {
		return err
	}
	ms.info.Title = title
	return nil
}

func (s *MemoryStore) SaveState(_ context.Context, id string, st State, runs int, now time.Time) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("session %q: encoding state: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.get(id)
	if err != nil {
		return err
	}
	ms.state = data
	ms.info.Runs += runs
	ms.info.Updated = now
	return nil
}

func (s *MemoryStore) State(_ context.Context, id string) (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.get(id)
	if err != nil {
		return State{}, err
	}
	var st State
	if ms.state != nil {
		if err := json.Unmarshal(ms.state, &st); err != nil {
			return State{}, fmt.Errorf("session %q: decoding state: %w", id, err)
		}
	}
	return st, nil
}

func (s *MemoryStore) AppendEvent(_ context.Context, id string, at time.Time, ev event.Event) (int64, error) {
	data, err := event.Marshal(ev)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.get(id)
	if err != nil {
		return 0, err
	}
	ms.events = append(ms.events, memEvent{at: at, data: data})
	return int64(len(ms.events)), nil
}

func (s *MemoryStore) Events(_ context.Context, id string, after int64) iter.Seq2[StoredEvent, error] {
	return func(yield func(StoredEvent, error) bool) {
		s.mu.Lock()
		ms, err := s.get(id)
		var evs []memEvent
		if err == nil {
			evs = slices.Clone(ms.events)
		}
		s.mu.Unlock()
		if err != nil {
			yield(StoredEvent{}, err)
			return
		}
		for i := max(after, 0); i < int64(len(evs)); i++ {
			se, err := DecodeEvent(i+1, evs[i].at, evs[i].data)
			if !yield(se, err) {
				return
			}
		}
	}
}

// DecodeEvent turns a stored event's JSON (event.Marshal's form)
// back into a StoredEvent, for Store implementations. An event written by
// a newer Tether is returned with an error and no Event.
func DecodeEvent(seq int64, at time.Time, data []byte) (StoredEvent, error) {
	ev, err := event.Unmarshal(data)
	if err != nil {
		return StoredEvent{Seq: seq, Time: at}, fmt.Errorf("session: event %d: %w", seq, err)
	}
	return StoredEvent{Seq: seq, Time: at, Event: ev}, nil
}

// Close makes every later call fail with ErrClosed.
func (s *MemoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

func (s *MemoryStore) Lease(_ context.Context, id, owner string, now, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.get(id)
	if err != nil {
		return err
	}
	if l := ms.lease; l.owner != "" && l.owner != owner && l.until.After(now) {
		return &LeaseError{Session: id, Owner: l.owner, Until: l.until}
	}
	ms.lease = memLease{owner: owner, until: until}
	return nil
}

func (s *MemoryStore) Release(_ context.Context, id, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.get(id)
	if err != nil {
		return err
	}
	if ms.lease.owner == owner {
		ms.lease = memLease{}
	}
	return nil
}
