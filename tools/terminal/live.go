package terminal

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/tools"
)

// Live output: while a command runs, new lines are reported to the call's
// tools.Reporter in batches, at most every liveEvery and liveLines lines a
// batch (the rest counted as dropped), so a command printing gigabytes
// costs the UI a few reports a second and the agent bounded memory.
const (
	liveEvery = 100 * time.Millisecond
	liveLines = 50
)

// live is an io.Writer in front of an Output that also collects new lines
// for progress reports. Writes come from exec's copying goroutine, reports
// from a ticker goroutine.
type live struct {
	mu      sync.Mutex
	out     *Output
	pending []string
	dropped int
}

func (l *live) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.Write(p)
}

func (l *live) line(b []byte) { // called under l.mu, from Output.endLine
	if len(l.pending) < liveLines {
		l.pending = append(l.pending, string(b))
	} else {
		l.dropped++
	}
}

func (l *live) take() ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, d := l.pending, l.dropped
	l.pending, l.dropped = nil, 0
	return p, d
}

// startLive reports out's new lines to ctx's Reporter until stop is called;
// stop sends what is left and may be called more than once. Call it once
// the command's output is closed, before reading out: afterwards out is
// used by one goroutine again. Without a Reporter, out is returned as is.
// Reported lines pass through red, as the final output does.
func startLive(ctx context.Context, out *Output, red *Redactor) (w interface{ Write([]byte) (int, error) }, stop func()) {
	if !tools.Reporting(ctx) {
		return out, func() {}
	}
	l := &live{out: out}
	out.onLine = l.line
	send := func() {
		if lines, dropped := l.take(); len(lines) > 0 || dropped > 0 {
			tools.Report(ctx, tools.Progress{Tool: Name, Output: red.Redact(strings.Join(lines, "\n")), Dropped: dropped})
		}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(liveEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				send()
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return l, func() {
		once.Do(func() {
			close(done)
			<-finished
			send()
		})
	}
}
