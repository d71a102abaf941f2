package lazyregexp

import (
	"regexp"
	"testing"
)

func TestCompilesOnFirstUseOnly(t *testing.T) {
	r := New(`a(b+)`)
	if r.String() != `a(b+)` {
		t.Fatalf("String = %q", r.String())
	}
	if got := r.FindStringSubmatch("xabbb"); len(got) != 2 || got[1] != "bbb" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	if r.Regexp() != r.Regexp() {
		t.Fatal("compiled twice")
	}
}

func TestMalformedPanicsOnUse(t *testing.T) {
	r := New(`a(`) // no panic yet
	defer func() {
		if recover() == nil {
			t.Fatal("a malformed expression did not panic when used")
		}
	}()
	r.MatchString("a")
}

// TestNewDoesNotCompile: creating one is one small allocation, not a
// compiled program (regexp.MustCompile of the same costs dozens).
func TestNewDoesNotCompile(t *testing.T) {
	expr := `^(stable|beta|nightly|[0-9][0-9.]*)(-[0-9]{4}-[0-9]{2}-[0-9]{2})?$`
	lazy := testing.AllocsPerRun(100, func() { New(expr) })
	eager := testing.AllocsPerRun(100, func() { regexp.MustCompile(expr) })
	if lazy > 1 || eager <= lazy {
		t.Fatalf("New allocates %v times, MustCompile %v", lazy, eager)
	}
}
