package approval

import (
	"fmt"
	"slices"
	"sync"
)

// Grants is a set of session rules created by "allow for this session"
// answers. A rule matches a request only when kind, tool name and subject are
// byte-for-byte equal (see Rule).
//
// Grants layer: a set with a Parent also allows whatever the parent allows, so
// a host can keep project-wide grants in one set and per-session grants in a
// child. Add always adds to the set it is called on. Parents must not form a
// cycle. The zero value is an
// empty set ready to use; it is safe for concurrent use.
type Grants struct {
	Parent *Grants

	mu    sync.Mutex
	rules []Rule // in the order granted
}

// Add grants r. Adding a rule twice is a no-op.
func (g *Grants) Add(r Rule) error {
	if r.Subject == "" {
		return fmt.Errorf("%w: a session rule needs a subject", ErrInvalidRequest)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !slices.Contains(g.rules, r) {
		g.rules = append(g.rules, r)
	}
	return nil
}

// Revoke removes r from this set (not from its parent) and reports whether it
// was there.
func (g *Grants) Revoke(r Rule) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := slices.Index(g.rules, r)
	if i < 0 {
		return false
	}
	g.rules = slices.Delete(g.rules, i, i+1)
	return true
}

// Rules returns this set's rules (not its parent's) in the order granted.
func (g *Grants) Rules() []Rule {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.rules)
}

// Match returns the rule that covers req, searching this set then its parents.
func (g *Grants) Match(req Request) (Rule, bool) {
	want := req.Rule()
	for s := g; s != nil; s = s.Parent {
		s.mu.Lock()
		ok := slices.Contains(s.rules, want)
		s.mu.Unlock()
		if ok {
			return want, true
		}
	}
	return Rule{}, false
}
