package tailbuf

import (
	"strings"
	"testing"
)

func TestKeepsTheTail(t *testing.T) {
	for _, tc := range []struct {
		writes []string
		want   string
	}{
		{[]string{"abc"}, "abc"},
		{[]string{"abc", "def"}, "cdef"},
		{[]string{"abcdefgh"}, "efgh"},
		{[]string{"ab", "cdefghij", "k"}, "hijk"},
		{nil, ""},
	} {
		b := New(4)
		for _, w := range tc.writes {
			if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
			}
		}
		if got := b.String(); got != tc.want {
			t.Errorf("after %q: %q, want %q", strings.Join(tc.writes, "|"), got, tc.want)
		}
	}
}
