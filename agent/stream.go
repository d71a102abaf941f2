package agent

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/toolcall"
)

// streamProcessor owns one model response: it drains the stream,
// accumulates thinking, content and native calls, and emits display
// events (throttled text, thinking, its collapse, call starts and
// "Writing <file>…"). It never runs tools and never touches history: it
// returns a streamResult and the executor decides.
type streamProcessor struct {
	emit       func(event.Event)
	now        func() time.Time
	newParser  func() *toolcall.Stream // parses calls and <think> out of content
	isFileEdit func(name string) bool  // names a tool that may write files, for calls written in text
	// fileWriting returns the file a complete native call will write, or "".
	fileWriting func(name string, args json.RawMessage) string
}

// streamResult is everything one response produced.
type streamResult struct {
	Content  string // raw content as the model wrote it, thinking echo removed: kept in history
	Thinking string // native reasoning only; <think> blocks stay in Content
	Display  string // the prose shown to the user
	Native   []llm.ToolCall
	Parsed   toolcall.Result // calls and failures found in the content
	Complete bool            // the completion signal appeared
	Usage    llm.Usage
	Stop     llm.StopReason
	Done     bool // the stream ended with a Done chunk
}

// streamState is the per-response working state.
type streamState struct {
	p          *streamProcessor
	res        streamResult
	parser     *toolcall.Stream
	content    strings.Builder
	thinking   strings.Builder
	display    strings.Builder
	text       signalFilter // on display text
	think      signalFilter // on thinking
	echo       echoFilter
	echoArmed  bool
	th         throttle // display text
	thinkTh    throttle // thinking: same interval, no first-chunk gate
	thinkStart time.Time
	lastThink  time.Time
	collapsed  bool
	blockNames map[int]string // text-mode call blocks → tool names
}

// run drains stream. thinkStart is when the request was sent; thinking
// durations are measured from it.
func (p *streamProcessor) run(ctx context.Context, stream iter.Seq2[llm.Chunk, error], thinkStart time.Time) (streamResult, error) {
	s := &streamState{p: p, parser: p.newParser(), thinkStart: thinkStart}
	s.thinkTh.started = true
	var err error
	for c, e := range stream {
		if mal := (*llm.MalformedToolCallError)(nil); errors.As(e, &mal) && len(mal.Calls) > 0 {
			// A native call whose arguments are not a JSON object goes
			// back to the model as a failed call it can correct, as a
			// text-mode call does: the bad ones carry their raw text,
			// which the runner refuses with the reason.
			p.emit(event.Notice{Kind: event.NoticeParseError, Text: mal.Error()})
			c, e = llm.Chunk{ToolCalls: mal.Calls, Done: true, StopReason: llm.StopToolCalls}, nil
		}
		if e != nil {
			err = e
			break
		}
		s.chunk(c)
		if c.Done {
			s.res.Done, s.res.Usage, s.res.Stop = true, c.Usage, c.StopReason
			break
		}
	}
	if err == nil && !s.res.Done {
		if err = ctx.Err(); err == nil {
			err = llm.ErrIncomplete
		}
	}
	s.finish()
	return s.res, err
}

func (s *streamState) chunk(c llm.Chunk) {
	if c.Thinking != "" {
		s.thinking.WriteString(c.Thinking)
		s.addThinking(c.Thinking)
	}
	if c.Content != "" {
		if !s.echoArmed {
			s.echoArmed = true
			s.echo.start(s.thinking.String())
		}
		s.addContent(s.echo.feed(c.Content))
	}
	for _, tc := range c.ToolCalls {
		s.flushText()
		s.collapse()
		idx := len(s.res.Native)
		s.res.Native = append(s.res.Native, tc)
		s.p.emit(event.ToolCallStarted{Name: tc.Name, Index: idx})
		if s.p.fileWriting != nil {
			if path := s.p.fileWriting(tc.Name, tc.Arguments); path != "" {
				s.p.emit(event.FileWriting{Tool: tc.Name, Path: path})
			}
		}
	}
}

// addThinking shows reasoning, native or from <think> blocks.
func (s *streamState) addThinking(t string) {
	s.lastThink = s.p.now()
	if out := s.thinkTh.add(s.think.feed(t), s.lastThink); out != "" {
		s.p.emit(event.ThinkingDelta{Text: out})
	}
}

func (s *streamState) addContent(c string) {
	if c == "" {
		return
	}
	s.content.WriteString(c)
	s.parsed(s.parser.Feed(c))
}

// parsed turns the parser's events into display events.
func (s *streamState) parsed(evs []toolcall.Event) {
	for _, ev := range evs {
		switch ev.Kind {
		case toolcall.EventText:
			s.addDisplay(s.text.feed(ev.Text))
		case toolcall.EventThinking:
			s.addThinking(ev.Text)
		case toolcall.EventCallStart:
			s.flushText()
			s.collapse()
			if s.blockNames == nil {
				s.blockNames = make(map[int]string)
			}
			s.blockNames[ev.Block] = ev.Name
			s.p.emit(event.ToolCallStarted{Name: ev.Name, Index: ev.Block})
		case toolcall.EventCallName:
			if s.blockNames == nil {
				s.blockNames = make(map[int]string)
			}
			s.blockNames[ev.Block] = ev.Name
		case toolcall.EventCallPath:
			if name := s.blockNames[ev.Block]; name != "" && s.p.isFileEdit(name) {
				s.p.emit(event.FileWriting{Tool: name, Path: ev.Path})
			}
		}
	}
}

func (s *streamState) addDisplay(t string) {
	if t == "" {
		return
	}
	s.display.WriteString(t)
	if out := s.th.add(t, s.p.now()); out != "" {
		s.collapse() // the answer has begun: thinking is over
		s.p.emit(event.TextDelta{Text: out})
	}
}

func (s *streamState) flushText() {
	if out := s.th.flush(s.p.now()); out != "" {
		s.collapse()
		s.p.emit(event.TextDelta{Text: out})
	}
}

// collapse closes the thinking block once: as soon as a call arrives
// (the UI can show the call at once), otherwise at the end. Its
// duration stops at the last thinking token, not at the call, so time a
// backend spends buffering the call does not count as thinking.
func (s *streamState) collapse() {
	if s.collapsed || s.lastThink.IsZero() {
		return
	}
	s.collapsed = true
	s.thinkTh.add(s.think.end(), s.lastThink)
	if out := s.thinkTh.flush(s.lastThink); out != "" {
		s.p.emit(event.ThinkingDelta{Text: out})
	}
	d := s.lastThink.Sub(s.thinkStart)
	s.p.emit(event.ThinkingCollapsed{DurationMS: max(d, 0).Milliseconds()})
}

func (s *streamState) finish() {
	s.addContent(s.echo.end())
	s.parsed(s.parser.Flush())
	s.res.Parsed = s.parser.Close()
	s.addDisplay(s.text.end())
	s.flushText()
	s.collapse()
	s.res.Content = s.content.String()
	s.res.Thinking = s.thinking.String()
	s.res.Display = s.display.String()
	// Only prose counts: a signal inside reasoning or inside a call's
	// arguments (a file that mentions it) does not end the task.
	s.res.Complete = s.text.seen
}
