package approval

// recent remembers the last few finished ids (request ids, change tokens) and
// why each finished, so a late caller can be told "already used" or
// "expired" rather than "unknown". It is bounded: the oldest entries are
// forgotten first. Not safe for concurrent use; callers hold their own lock.
type recent struct {
	limit int
	order []string
	why   map[string]error
}

func (r *recent) add(id string, why error) {
	if r.why == nil {
		r.why = make(map[string]error)
	}
	if _, ok := r.why[id]; ok {
		r.why[id] = why
		return
	}
	limit := r.limit
	if limit <= 0 {
		limit = defaultRemember
	}
	for len(r.order) >= limit {
		delete(r.why, r.order[0])
		r.order = r.order[1:]
	}
	r.order = append(r.order, id)
	r.why[id] = why
}

// lookup returns why id finished, or nil when it is not remembered.
func (r *recent) lookup(id string) error { return r.why[id] }
