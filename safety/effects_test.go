package safety

import "testing"

// TestEffectBitsDistinct checks that every effect of the vocabulary has
// its own bit, so a command never loses an effect to another's.
func TestEffectBitsDistinct(t *testing.T) {
	seen := map[uint32]Effect{}
	for e := range effectSeverity {
		b := e.bit()
		if b == 0 || b&(b-1) != 0 {
			t.Errorf("effect %s has bit %#x, not a single bit", e, b)
		}
		if o, dup := seen[b]; dup {
			t.Errorf("effects %s and %s share bit %#x", e, o, b)
		}
		seen[b] = e
	}
}
