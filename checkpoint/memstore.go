package checkpoint

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// MemoryStore is a Store that lives in memory: for tests and for hosts
// that do not need undo after a restart. The zero value is not usable;
// call NewMemoryStore.
type MemoryStore struct {
	mu      sync.Mutex
	infos   []Info // creation order
	blobs   map[string][]byte
	files   map[string]map[string]FileRecord // checkpoint → path → record
	changes map[string]map[int64]Change
	closed  bool
}

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{
		blobs:   map[string][]byte{},
		files:   map[string]map[string]FileRecord{},
		changes: map[string]map[int64]Change{},
	}
}

var errStoreClosed = fmt.Errorf("checkpoint: store is closed")

func (s *MemoryStore) lock() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errStoreClosed
	}
	return nil
}

func (s *MemoryStore) index(id string) int {
	return slices.IndexFunc(s.infos, func(i Info) bool { return i.ID == id })
}

func (s *MemoryStore) Create(ctx context.Context, info Info) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if info.ID == "" {
		return fmt.Errorf("checkpoint: create: empty id")
	}
	if s.index(info.ID) >= 0 {
		return fmt.Errorf("checkpoint: create %s: id already exists", info.ID)
	}
	s.infos = append(s.infos, info)
	s.files[info.ID] = map[string]FileRecord{}
	s.changes[info.ID] = map[int64]Change{}
	return nil
}

func (s *MemoryStore) Info(ctx context.Context, id string) (Info, error) {
	if err := s.lock(); err != nil {
		return Info{}, err
	}
	defer s.mu.Unlock()
	i := s.index(id)
	if i < 0 {
		return Info{}, fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	}
	return s.infos[i], nil
}

func (s *MemoryStore) List(ctx context.Context, session string) ([]Info, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []Info
	for _, i := range s.infos {
		if session == "" || i.Session == session {
			out = append(out, i)
		}
	}
	return out, nil
}

func (s *MemoryStore) Commit(ctx context.Context, id string, b Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	i := s.index(id)
	if i < 0 {
		return fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	}
	// Validate everything before changing anything, so a Commit is all or none.
	if err := b.Belongs(id); err != nil {
		return fmt.Errorf("checkpoint: commit to %s: %w", id, err)
	}
	for h, data := range b.Blobs {
		if _, ok := s.blobs[h]; !ok {
			s.blobs[h] = slices.Clone(data)
		}
	}
	for _, f := range b.Files {
		f.CreatedDirs = slices.Clone(f.CreatedDirs)
		s.files[id][f.Path] = f
	}
	for _, c := range b.Changes {
		s.changes[id][c.Seq] = c
	}
	for _, seq := range b.DropChanges {
		delete(s.changes[id], seq)
	}
	if b.State != "" {
		s.infos[i].State = b.State
	}
	return nil
}

func (s *MemoryStore) Blob(ctx context.Context, hash string) ([]byte, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	data, ok := s.blobs[hash]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", hash, ErrNotFound)
	}
	return slices.Clone(data), nil
}

func (s *MemoryStore) Files(ctx context.Context, id string) ([]FileRecord, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if s.index(id) < 0 {
		return nil, fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	}
	out := make([]FileRecord, 0, len(s.files[id]))
	for _, f := range s.files[id] {
		f.CreatedDirs = slices.Clone(f.CreatedDirs)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b FileRecord) int {
		if a.Order != b.Order {
			return int(a.Order - b.Order)
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out, nil
}

func (s *MemoryStore) Changes(ctx context.Context, id string) ([]Change, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if s.index(id) < 0 {
		return nil, fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	}
	out := make([]Change, 0, len(s.changes[id]))
	for _, c := range s.changes[id] {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Change) int { return int(a.Seq - b.Seq) })
	return out, nil
}

func (s *MemoryStore) Delete(ctx context.Context, id string) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	i := s.index(id)
	if i < 0 {
		return fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	}
	s.infos = slices.Delete(s.infos, i, i+1)
	delete(s.files, id)
	delete(s.changes, id)
	used := map[string]bool{}
	for _, fs := range s.files {
		for _, f := range fs {
			used[f.Pre.Hash], used[f.Post.Hash] = true, true
		}
	}
	for _, cs := range s.changes {
		for _, c := range cs {
			used[c.Before.Hash], used[c.After.Hash], used[c.FromBefore.Hash] = true, true, true
		}
	}
	for h := range s.blobs {
		if !used[h] {
			delete(s.blobs, h)
		}
	}
	return nil
}

func (s *MemoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
