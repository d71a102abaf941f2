package toolcall

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unsafe"
)

// Stream finds tool calls while a message streams in.
//
// Feed returns display-safe events: text is released as soon as it can no
// longer become markup, so a UI never shows call markup and never has to
// take text back. Only a suffix that could still be markup (a partial tag
// or fence opener, an open call block, JSON that may turn out to be a call)
// is held back. Close ends the input and returns the Result, which is
// exactly Parse of everything fed, however it was chunked.
//
// Parse is implemented as one Feed followed by Close, and the scanner's
// decisions depend only on the bytes seen so far (never on where a chunk
// ended), which is why the two agree by construction; a fuzz test checks it.
// Each byte is examined a bounded number of times, so the cost of a
// stream is linear in its length.
//
// Create one with NewStream, one per message; a Stream is not safe for
// concurrent use.
type Stream struct {
	cfg    config
	buf    []byte
	pos    int // next byte to examine
	eof    bool
	mode   mode
	closed bool

	textStart int // start of the prose run not yet turned into a segment
	shown     int // prose before this offset has been emitted

	res      Result
	events   []Event
	segCalls []int // shared backing array of Segment.Calls

	// src is set when buf is the memory of the string given to Parse:
	// then nothing may hand buf out as []byte (see ownArgs).
	src string
	// silent suppresses events: Parse has no one to report them to.
	silent bool

	find proseFinder

	noCandUntil int  // bare JSON may not start before this offset
	pyNoStart   int  // a pythonic list may not start before this offset
	started     bool // the start of the message has been checked (recognizeFunctionaryStart)
	blocks      int  // call blocks opened so far
	envelopes   int  // yips envelopes accepted so far

	blk  block
	cand candidates
	py   pyList
	th   think
	skip skipState
}

type mode uint8

const (
	mProse     mode = iota
	mFence          // inside a fence of another language: prose, no markup
	mThink          // inside <think>
	mBlock          // inside a call block
	mCandidate      // inside JSON that may be a call
	mTentative      // after call-shaped JSON, waiting to see whether it ends the message
	mSkip           // after a failed block, finding where it ends
	mPyList         // inside a [name(key=value), …] list that may be calls
)

// NewStream returns a Stream configured by opts.
func NewStream(opts ...Option) *Stream {
	s := &Stream{cfg: newConfig(opts)}
	if s.cfg.thinking {
		s.mode = mThink
		s.th = think{start: 0, content: 0, shown: 0, hold: -1, close: thinkClose}
	}
	return s
}

// Parse finds the tool calls in a complete model message.
func Parse(text string) Result {
	return ParseWith(text)
}

// ParseWith is Parse with options (an allow-list of tools, formats).
func ParseWith(text string, opts ...Option) Result {
	s := NewStream(opts...)
	// The scanner reads text in place, without copying it: the buffer is
	// never written in this mode, and nothing handed to the caller
	// aliases it as []byte (see ownArgs); strings are sliced from src.
	s.buf = unsafe.Slice(unsafe.StringData(text), len(text))
	s.src = text
	s.silent = true
	s.eof = true
	s.advance()
	return s.Close()
}

// Feed adds the next chunk of the message and returns what it settled.
// The returned slice is reused by the next call to Feed or Flush.
func (s *Stream) Feed(chunk string) []Event {
	s.events = s.events[:0]
	if s.eof {
		return nil
	}
	if s.buf == nil {
		// Streams arrive in small chunks: start with room for a few
		// kilobytes instead of growing a byte at a time.
		s.buf = make([]byte, 0, max(4096, len(chunk)))
	}
	s.buf = append(s.buf, chunk...)
	s.advance()
	return s.events
}

// Flush marks the end of the message and returns the final events: the
// held-back text and the calls that could only be confirmed at the end
// (bare JSON, blocks whose close tag never came). Close calls it if needed.
func (s *Stream) Flush() []Event {
	s.events = s.events[:0]
	if s.eof {
		return nil
	}
	s.eof = true
	s.advance()
	return s.events
}

// Close ends the message and returns the Result. It equals Parse of the
// concatenation of every chunk fed. Further Feed calls are ignored.
func (s *Stream) Close() Result {
	if !s.eof {
		s.Flush()
	}
	if !s.closed {
		s.closed = true
		s.res.Text = s.joinSegments(false)
		s.res.Thinking = s.joinSegments(true)
		if s.res.Calls == nil {
			s.res.Calls = []Call{}
		}
		if s.res.Segments == nil {
			s.res.Segments = []Segment{}
		}
	}
	return s.res
}

// joinSegments concatenates the Text of the thinking segments, or of
// the others. A single segment's text is returned without copying.
func (s *Stream) joinSegments(thinking bool) string {
	n, parts, last := 0, 0, ""
	for i := range s.res.Segments {
		seg := &s.res.Segments[i]
		if (seg.Kind == SegmentThinking) == thinking && seg.Text != "" {
			n += len(seg.Text)
			parts++
			last = seg.Text
		}
	}
	if parts <= 1 {
		return last
	}
	var b strings.Builder
	b.Grow(n)
	for i := range s.res.Segments {
		seg := &s.res.Segments[i]
		if (seg.Kind == SegmentThinking) == thinking {
			b.WriteString(seg.Text)
		}
	}
	return b.String()
}

// ownArgs returns arguments safe to hand to the caller: a copy when the
// buffer is the caller's string, else the bytes clipped so that an append
// by the caller cannot write into the buffer.
func (s *Stream) ownArgs(a json.RawMessage) json.RawMessage {
	if s.src != "" {
		return bytes.Clone(a)
	}
	return slices.Clip(a)
}

// str returns buf[a:b] as a string without copying.
//
// Invariant: buf is append-only. Bytes once written are never modified
// (Feed only appends; a reallocation copies them and leaves the old array
// as it was), so a string may view them, as strings.Builder does.
func (s *Stream) str(a, b int) string {
	if a >= b {
		return ""
	}
	return unsafe.String(&s.buf[a], b-a)
}

func (s *Stream) emit(e Event) {
	if !s.silent {
		s.events = append(s.events, e)
	}
}

// advance runs the scanner until it needs more input. At end of input
// every mode settles, so advance then consumes everything.
func (s *Stream) advance() {
	for {
		var more bool
		switch s.mode {
		case mProse, mFence:
			more = s.prose()
		case mThink:
			more = s.thinkStep()
		case mBlock:
			more = s.blockStep()
		case mCandidate:
			more = s.candidateStep()
		case mTentative:
			more = s.tentativeStep()
		case mSkip:
			more = s.skipStep()
		case mPyList:
			more = s.pyListStep()
		}
		if !more {
			break
		}
	}
	s.emitText()
	if s.eof && s.pos >= len(s.buf) {
		s.flushText(len(s.buf))
	}
}

// displayLimit is the offset up to which prose is settled.
func (s *Stream) displayLimit() int {
	switch s.mode {
	case mProse, mFence:
		return s.pos
	case mCandidate, mTentative, mPyList:
		return s.cand.chainStart
	}
	return 0 // block, skip and think hold their text
}

// emitText releases settled prose as an EventText.
func (s *Stream) emitText() {
	s.showUpTo(s.displayLimit())
}

// showUpTo emits settled prose up to end without ending the prose run.
func (s *Stream) showUpTo(end int) {
	if end > s.shown {
		if !s.silent {
			s.emit(Event{Kind: EventText, Text: s.str(s.shown, end)})
		}
		s.shown = end
	}
}

// flushText ends the current prose run at end: emits what is still held
// and records the run as a text segment.
func (s *Stream) flushText(end int) {
	if end > s.textStart {
		t := s.str(s.textStart, end)
		if end > s.shown {
			if s.shown == s.textStart {
				s.emit(Event{Kind: EventText, Text: t}) // share the string
			} else {
				s.showUpTo(end)
			}
		}
		s.res.Segments = append(s.res.Segments, Segment{Kind: SegmentText, Start: s.textStart, End: end, Text: t})
	}
	s.textStart = end
	s.shown = max(s.shown, end)
}

// prose scans prose (or a foreign fence) for markup. It returns true when
// the mode changed and advance should continue.
func (s *Stream) prose() bool {
	b := s.buf
	if !s.started && s.mode == mProse && s.pos == 0 {
		r := s.recognizeFunctionaryStart(b, s.eof)
		switch r.v {
		case vNeed:
			return false
		case vBlock:
			s.started = true
			s.startBlock(0, r)
			return true
		case vMarkup:
			s.addMarkup(0, r.end)
		}
		s.started = true
	}
	for s.pos < len(b) {
		if s.mode == mFence {
			j := bytes.IndexByte(b[s.pos:], '`')
			if j < 0 {
				s.pos = len(b)
				return false
			}
			p := s.pos + j
			end, ok, need := isFenceClose(b, p, s.eof)
			if need {
				s.pos = p
				return false
			}
			if ok {
				s.pos = end
				s.mode = mProse
			} else {
				s.pos = p + 1
			}
			continue
		}
		p := s.find.next(b, s.pos)
		if p < 0 {
			s.pos = len(b)
			return false
		}
		s.pos = p
		r := s.recognize(b, p, s.eof)
		switch r.v {
		case vNeed:
			return false
		case vNone:
			s.pos = p + 1
		case vFence:
			s.pos = r.end
			s.mode = mFence
		case vThink:
			s.flushText(p)
			s.th = think{start: p, content: r.end, shown: r.end, hold: -1, close: r.closeBy}
			s.pos = r.end
			s.mode = mThink
			return true
		case vMarkup:
			s.addMarkup(p, r.end)
		case vBlock:
			s.startBlock(p, r)
			return true
		case vCandidate:
			s.startCandidate(p, p, -1)
			return true
		case vJSONFence:
			s.startCandidate(p, r.end, r.lineEnd)
			return true
		}
	}
	return false
}

// addCallSegment records calls found in [start,end) with their display
// text (an envelope's assistant_text) and emits their events.
func (s *Stream) addCallSegment(start, end int, text string, calls []Call, block int) {
	s.flushText(start)
	seg := Segment{Kind: SegmentCall, Start: start, End: end, Text: text}
	if text != "" {
		s.emit(Event{Kind: EventText, Text: text})
	}
	if s.res.Calls == nil {
		// Messages with calls usually have several: skip the smallest
		// growth steps, each of which copies every call.
		s.res.Calls = make([]Call, 0, 8)
		s.res.Segments = slices.Grow(s.res.Segments, 16)
	}
	first := len(s.segCalls)
	for _, c := range calls {
		idx := len(s.res.Calls)
		s.res.Calls = append(s.res.Calls, c)
		s.segCalls = append(s.segCalls, idx)
		// Calls are never modified once appended, so the event may point
		// at the element even if the slice later grows.
		s.emit(Event{Kind: EventCall, Block: block, Format: c.Format, Name: c.Name, Index: idx, Call: &s.res.Calls[idx]})
	}
	if len(s.segCalls) > first {
		seg.Calls = s.segCalls[first:len(s.segCalls):len(s.segCalls)]
	}
	s.res.Segments = append(s.res.Segments, seg)
	s.textStart, s.shown = end, end
}

// addMarkup drops the control token at [start,end) from Text.
func (s *Stream) addMarkup(start, end int) {
	s.flushText(start)
	s.res.Segments = append(s.res.Segments, Segment{Kind: SegmentMarkup, Start: start, End: end})
	s.textStart, s.shown = end, max(s.shown, end)
	s.pos = end
}

// addFailure records a failed block; its text stays prose, so the prose
// run simply continues over it.
func (s *Stream) addFailure(f Failure) {
	f.Raw = s.str(f.Start, f.End)
	s.res.Failures = append(s.res.Failures, f)
	ff := f
	s.emit(Event{Kind: EventFailure, Block: s.blk.seq, Format: f.Format, Failure: &ff})
}

func (s *Stream) addWarning(w Warning) {
	s.res.Warnings = append(s.res.Warnings, w)
	ww := w
	s.emit(Event{Kind: EventWarning, Block: s.blk.seq, Warning: &ww})
}
