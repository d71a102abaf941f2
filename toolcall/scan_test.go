package toolcall

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestSWARIndexes checks the word-at-a-time searches against byte loops
// on every byte value at every position of a word, and on random text
// dense in the bytes they look for (a borrow from a zero byte must never
// move the first hit).
func TestSWARIndexes(t *testing.T) {
	naive := func(b []byte, match func(byte) bool) int {
		for i, c := range b {
			if match(c) {
				return i
			}
		}
		return -1
	}
	prose := func(c byte) bool { return bytes.IndexByte([]byte(proseSpecials), c) >= 0 }
	str := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	ctl := func(c byte) bool { return c < 0x20 }
	check := func(b []byte) {
		t.Helper()
		if got, want := indexProseSpecial(b), naive(b, prose); got != want {
			t.Fatalf("indexProseSpecial(%q) = %d, want %d", b, got, want)
		}
		if got, want := hasProseSpecial(b), naive(b, prose) >= 0; got != want {
			t.Fatalf("hasProseSpecial(%q) = %v, want %v", b, got, want)
		}
		if got, want := indexStringSpecial(b), naive(b, str); got != want {
			t.Fatalf("indexStringSpecial(%q) = %d, want %d", b, got, want)
		}
		if got, want := indexControl(b), naive(b, ctl); got != want {
			t.Fatalf("indexControl(%q) = %d, want %d", b, got, want)
		}
	}
	for c := range 256 {
		for pos := range 17 {
			b := bytes.Repeat([]byte{'a'}, 17)
			b[pos] = byte(c)
			check(b)
			b[pos] = byte(c)
			if pos+1 < len(b) {
				b[pos+1] = 0x01 // a byte that borrows after a zero
			}
			check(b)
		}
	}
	alphabet := []byte("<>[{`\"\\\x00\x01\x1f !=?@Z_a\x7f\x80\xe2\xff")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(b)
	}
}
