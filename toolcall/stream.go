package toolcall

import (
	"bytes"
	"strings"
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
// ended), which is why the two agree by construction; FuzzStream checks it.
// Each byte is examined a bounded number of times, so the cost of a
// stream is linear in its length.
//
// A Stream is not safe for concurrent use.
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
	text     strings.Builder
	thinking strings.Builder
	events   []Event

	noCandUntil int // bare JSON may not start before this offset
	blocks      int // call blocks opened so far
	envelopes   int // yips envelopes accepted so far

	blk  block
	cand candidates
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
)

// NewStream returns a Stream configured by opts.
func NewStream(opts ...Option) *Stream {
	s := &Stream{cfg: newConfig(opts)}
	if s.cfg.thinking {
		s.mode = mThink
		s.th = think{start: 0, content: 0, shown: 0, hold: -1}
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
	s.buf = make([]byte, 0, len(text))
	s.Feed(text)
	return s.Close()
}

// Feed adds the next chunk of the message and returns what it settled.
// The returned slice is reused by the next call to Feed or Flush.
func (s *Stream) Feed(chunk string) []Event {
	s.events = s.events[:0]
	if s.eof {
		return nil
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
		s.res.Text = s.text.String()
		s.res.Thinking = s.thinking.String()
		if s.res.Calls == nil {
			s.res.Calls = []Call{}
		}
		if s.res.Segments == nil {
			s.res.Segments = []Segment{}
		}
	}
	return s.res
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
	case mCandidate, mTentative:
		return s.cand.chainStart
	}
	return s.textStart // block, skip and think hold their text
}

// emitText releases settled prose as an EventText.
func (s *Stream) emitText() {
	if lim := s.displayLimit(); lim > s.shown {
		s.events = append(s.events, Event{Kind: EventText, Text: string(s.buf[s.shown:lim])})
		s.shown = lim
	}
}

// flushText ends the current prose run at end: emits what is still held
// and records the run as a text segment.
func (s *Stream) flushText(end int) {
	if end > s.shown {
		s.events = append(s.events, Event{Kind: EventText, Text: string(s.buf[s.shown:end])})
		s.shown = end
	}
	if end > s.textStart {
		t := string(s.buf[s.textStart:end])
		s.text.WriteString(t)
		s.res.Segments = append(s.res.Segments, Segment{Kind: SegmentText, Start: s.textStart, End: end, Text: t})
	}
	s.textStart = end
	s.shown = max(s.shown, end)
}

// prose scans prose (or a foreign fence) for markup. It returns true when
// the mode changed and advance should continue.
func (s *Stream) prose() bool {
	b := s.buf
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
		j := indexProseSpecial(b[s.pos:])
		if j < 0 {
			s.pos = len(b)
			return false
		}
		p := s.pos + j
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
			s.th = think{start: p, content: r.end, shown: r.end, hold: -1}
			s.pos = r.end
			s.mode = mThink
			return true
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
		s.text.WriteString(text)
		s.events = append(s.events, Event{Kind: EventText, Text: text})
	}
	for _, c := range calls {
		idx := len(s.res.Calls)
		s.res.Calls = append(s.res.Calls, c)
		seg.Calls = append(seg.Calls, idx)
		cc := c
		s.events = append(s.events, Event{Kind: EventCall, Block: block, Format: c.Format, Name: c.Name, Index: idx, Call: &cc})
	}
	s.res.Segments = append(s.res.Segments, seg)
	s.textStart, s.shown = end, end
}

// addFailure records a failed block; its text stays prose, so the prose
// run simply continues over it.
func (s *Stream) addFailure(f Failure) {
	f.Raw = string(s.buf[f.Start:f.End])
	s.res.Failures = append(s.res.Failures, f)
	ff := f
	s.events = append(s.events, Event{Kind: EventFailure, Block: s.blk.seq, Format: f.Format, Failure: &ff})
}

func (s *Stream) addWarning(w Warning) {
	s.res.Warnings = append(s.res.Warnings, w)
	ww := w
	s.events = append(s.events, Event{Kind: EventWarning, Block: s.blk.seq, Warning: &ww})
}
