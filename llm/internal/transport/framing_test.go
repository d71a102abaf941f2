package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
)

func readGuarded(data []byte, max int) (int, error) {
	g := &eventGuard{rc: io.NopCloser(bytes.NewReader(data)), max: max, rec: &Record{}, atLine: true}
	n, err := io.Copy(io.Discard, g)
	return int(n), err
}

func TestEventGuard(t *testing.T) {
	ok := []string{
		"data: a\n\ndata: b\n\n",
		"data: a\r\n\r\ndata: bb\r\n\r\n",
		"data: " + strings.Repeat("x", 90) + "\n\n" + "data: " + strings.Repeat("y", 90) + "\n\n",
		": keep-alive\n\n",
	}
	for _, s := range ok {
		if _, err := readGuarded([]byte(s), 100); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	bad := []string{
		strings.Repeat("data: x\n", 20),     // never a blank line
		"data: " + strings.Repeat("x", 200), // never a newline
		"data: a\n\n" + strings.Repeat("data: y\r\n", 20),
	}
	for _, s := range bad {
		_, err := readGuarded([]byte(s), 100)
		var le *llm.LimitError
		if !errors.As(err, &le) || le.What != "SSE event" || !errors.Is(err, llm.ErrResponseLimit) {
			t.Errorf("%q: err = %v, want the SSE event limit", s, err)
		}
	}
}

// FuzzEventGuard: the guard passes every stream whose events fit its
// bound, byte for byte, and stops every stream with an event over it,
// before more than the bound of that event has been read.
func FuzzEventGuard(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"), 16)
	f.Add([]byte("data: x\ndata: y\n"), 4)
	f.Add([]byte("\r\n\r\n\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max <= 0 || max > 1<<16 {
			return
		}
		n, err := readGuarded(data, max)
		need := guardNeed(data)
		switch {
		case need <= max && err != nil:
			t.Fatalf("events of at most %d bytes refused at bound %d: %v", need, max, err)
		case need <= max && n != len(data):
			t.Fatalf("passed %d of %d bytes", n, len(data))
		case need > max && err == nil:
			t.Fatalf("an event of %d bytes passed the bound %d", need, max)
		}
	})
}

// guardNeed is the bound a stream needs, the guard's rule restated over
// the whole input at once rather than read by read: the longest run of
// bytes not broken by an empty line (nothing but "\r" between two "\n",
// or at the start).
func guardNeed(data []byte) int {
	need, run := 0, 0
	lineEmpty := true // at the start, as after a line end
	for _, b := range data {
		switch b {
		case '\n':
			if lineEmpty {
				run = 0
				continue
			}
			lineEmpty = true
		case '\r':
		default:
			lineEmpty = false
		}
		run++
		need = max(need, run)
	}
	return need
}
