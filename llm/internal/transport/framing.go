package transport

import (
	"io"

	"github.com/tetherdev/tether/llm"
)

// eventGuard bounds one SSE event: the bytes from the end of the last
// event (a blank line, "\n\n" or "\r\n\r\n") to the next. A server that
// sends data: lines without ever ending the event, or bytes without a
// newline, would otherwise grow the client's event buffer without end.
type eventGuard struct {
	rc     io.ReadCloser
	max    int
	run    int  // bytes of the current event
	atLine bool // the last byte ended a line
	rec    *Record
	err    error
}

func (g *eventGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.rc.Read(p)
	for i, b := range p[:n] {
		switch b {
		case '\n':
			if g.atLine {
				g.run = 0 // a blank line ends the event
				continue
			}
			g.atLine = true
		case '\r':
		default:
			g.atLine = false
		}
		g.run++
		if g.run > g.max {
			g.err = &llm.LimitError{What: "SSE event", Limit: g.max}
			g.rec.setReadErr(g.err)
			return i, g.err
		}
	}
	return n, err
}

func (g *eventGuard) Close() error { return g.rc.Close() }
