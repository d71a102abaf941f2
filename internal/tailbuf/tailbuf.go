// Package tailbuf keeps the end of a stream: the last bytes a child
// process wrote to stderr, so an error about its exit can quote them
// without holding everything it ever printed.
package tailbuf

import (
	"bytes"
	"sync"
)

// Buffer keeps the last Max bytes written to it. It is safe for concurrent
// use, as an exec.Cmd's Stderr must be.
type Buffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

// New returns a Buffer that keeps the last max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write keeps the tail of p and drops what no longer fits; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if len(p) > b.max {
		p = p[len(p)-b.max:]
	}
	if over := b.buf.Len() + len(p) - b.max; over > 0 {
		b.buf.Next(over)
	}
	b.buf.Write(p)
	return n, nil
}

// String returns what is kept.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
