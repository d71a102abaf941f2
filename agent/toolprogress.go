package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// Bounds on live command output, per call. Tools already batch their
// output; these keep a chatty command from flooding a UI or a log.
const (
	progressEvery     = 100 * time.Millisecond // output events at most this often
	progressMaxLines  = 40                     // lines per output event; the rest are counted
	progressMaxEvents = 100                    // output events per call; later lines are counted
)

// withToolProgress wraps execute so that every call reports its progress
// as event.ToolProgress events. It wraps the one execute function every handler
// uses (terminal, file edits, others, plain registry calls), so no handler
// needs to know about it.
func withToolProgress(execute func(context.Context, tools.Call) tools.Result, emit func(event.Event), now func() time.Time) func(context.Context, tools.Call) tools.Result {
	return func(ctx context.Context, c tools.Call) tools.Result {
		p := &progressRelay{callID: c.ID, emit: emit, now: now}
		res := execute(tools.WithReporter(ctx, p.report), c)
		p.finish()
		return res
	}
}

// progressRelay turns one call's tools.Progress reports into events:
// structural reports (a read chunk, search counts) at once, command
// output throttled and bounded. Reports may come from the tool's
// goroutines, so it locks.
type progressRelay struct {
	callID string
	emit   func(event.Event)
	now    func() time.Time

	mu      sync.Mutex
	tool    string
	last    time.Time // last output event
	lines   []string  // output held back by the throttle
	dropped int
	sent    int // output events sent
}

func (p *progressRelay) report(pr tools.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tool = pr.Tool
	if pr.Output == "" && pr.Dropped == 0 || len(pr.Files) > 0 || pr.StartLine > 0 {
		p.flushLocked(true) // keep output before what came after it
		p.emit(structural(p.callID, pr))
		return
	}
	for line := range strings.SplitSeq(pr.Output, "\n") {
		if len(p.lines) < progressMaxLines {
			p.lines = append(p.lines, line)
		} else {
			p.dropped++
		}
	}
	p.dropped += pr.Dropped
	if now := p.now(); now.Sub(p.last) >= progressEvery {
		p.flushLocked(false)
	}
}

// flushLocked sends held output. Past progressMaxEvents only counting
// goes on, except for the final flush, which says how much was left out.
func (p *progressRelay) flushLocked(final bool) {
	if len(p.lines) == 0 && p.dropped == 0 {
		return
	}
	if p.sent >= progressMaxEvents && !final {
		p.dropped += len(p.lines)
		p.lines = p.lines[:0]
		return
	}
	p.emit(event.ToolProgress{CallID: p.callID, Tool: p.tool, Output: strings.Join(p.lines, "\n"), Dropped: p.dropped})
	p.lines, p.dropped = p.lines[:0], 0
	p.last = p.now()
	p.sent++
}

func (p *progressRelay) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked(true)
}

// structural describes a read chunk, a search's per-file counts, or a
// step a tool counts itself (a PDF's pages, an MCP tool's progress).
func structural(callID string, pr tools.Progress) event.ToolProgress {
	e := event.ToolProgress{CallID: callID, Tool: pr.Tool, Path: pr.Path, StartLine: pr.StartLine, EndLine: pr.EndLine, Files: pr.Files, Dropped: pr.Dropped,
		Done: pr.Done, Total: pr.Total}
	switch {
	case len(pr.Files) > 0:
		matches := 0
		for _, f := range pr.Files {
			matches += f.Matches
		}
		e.Title = fmt.Sprintf("Found %s in %s", count(matches, "match", "matches"), count(len(pr.Files), "file", "files"))
		if pr.Dropped > 0 {
			e.Title += fmt.Sprintf(" (and %s)", count(pr.Dropped, "more file", "more files"))
		}
	case pr.StartLine > 0:
		e.Title = fmt.Sprintf("Reading %s lines %d–%d", pr.Path, pr.StartLine, pr.EndLine)
	case pr.Message != "":
		e.Title = pr.Message
	}
	return e
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
