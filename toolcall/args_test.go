package toolcall

import (
	"strings"
	"testing"
)

// TestArgumentsAreIndependent checks that the caller owns each call's
// Arguments: writing into one call's bytes or appending to them changes
// neither the input string, nor another call, nor the Result of a later
// parse. Parse copies arguments out of the caller's string into shared
// blocks, so this is what keeps the copies apart.
func TestArgumentsAreIndependent(t *testing.T) {
	in := callsInput(40) + bigArgInput(2<<10) + "\n" + callsInput(3)
	orig := strings.Clone(in)
	parse := map[string]func() Result{
		"Parse": func() Result { return Parse(in) },
		"Stream": func() Result {
			s := NewStream()
			for _, c := range chunks(in, 7) {
				s.Feed(c)
			}
			return s.Close()
		},
	}
	for name, p := range parse {
		r := p()
		want := p()
		if len(r.Calls) != 44 {
			t.Fatalf("%s: %d calls, want 44", name, len(r.Calls))
		}
		for i := range r.Calls {
			a := r.Calls[i].Arguments
			if len(a) == 0 {
				t.Fatalf("%s: call %d has no arguments", name, i)
			}
			_ = append(a, "XXXXXXXXXXXXXXXX"...)
			if name == "Parse" {
				a[0] = '!' // the stream's bytes are its own buffer, read-only by contract
			}
		}
		for i := range r.Calls {
			if name == "Parse" {
				if r.Calls[i].Arguments[0] != '!' {
					t.Errorf("%s: call %d lost the write to its own arguments", name, i)
				}
				if string(r.Calls[i].Arguments[1:]) != string(want.Calls[i].Arguments[1:]) {
					t.Errorf("%s: call %d arguments changed by writes to other calls: %s", name, i, r.Calls[i].Arguments)
				}
			} else if string(r.Calls[i].Arguments) != string(want.Calls[i].Arguments) {
				t.Errorf("%s: call %d arguments changed by appends to other calls: %s", name, i, r.Calls[i].Arguments)
			}
		}
		if in != orig {
			t.Fatalf("%s: the input string was modified", name)
		}
	}
}
