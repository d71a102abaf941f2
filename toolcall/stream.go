package toolcall

import (
	"bytes"
	"encoding/json"
	"math/bits"
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
// Create one with NewStream, one per message; the zero Stream is ready to
// use and behaves like NewStream(). A Stream is not safe for concurrent
// use.
type Stream struct {
	cfg    config
	buf    []byte
	pos    int // next byte to examine
	eof    bool
	mode   mode
	closed bool

	textStart int // start of the prose run not yet turned into a segment
	shown     int // prose before this offset has been emitted

	res    Result
	events []Event
	// proseEvent is the only event of a Feed that found plain prose;
	// only its Text ever changes (see Feed).
	proseEvent [1]Event
	segCalls   []int // shared backing array of Segment.Calls

	// src is set when buf is the memory of the string given to Parse:
	// then nothing may hand buf out as []byte (see ownArgs).
	src string
	// argCopies holds the copies of arguments ownArgs hands out when
	// buf is the caller's string.
	argCopies []byte
	// silent suppresses events: Parse has no one to report them to.
	silent bool

	find proseFinder

	noCandUntil int  // bare JSON may not start before this offset
	pyNoStart   int  // a pythonic list may not start before this offset
	started     bool // the start of the message has been checked (recognizeFunctionaryStart)
	blocks      int  // call blocks opened so far
	envelopes   int  // yips envelopes accepted so far
	examples    int  // fenced calls judged examples so far (example.go)
	reasoned    bool // a reasoning tag was seen: calls are no longer held (drafts.go)
	held        []heldCall

	blk  block
	cand candidates
	py   pyList
	pyf  pyFence
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
	mPyFence        // inside a ```tool_code fence that may hold calls
)

// NewStream returns a Stream configured by opts.
func NewStream(opts ...Option) *Stream {
	s := &Stream{}
	s.configure(newConfig(opts))
	return s
}

// configure sets the configuration before the first byte is scanned.
func (s *Stream) configure(c config) {
	s.cfg = c
	if s.cfg.thinking {
		s.mode = mThink
		s.th = think{start: 0, content: 0, shown: 0, hold: -1, close: thinkClose}
	}
}

// ready gives a zero Stream the default configuration, so that
// var s Stream works exactly like NewStream().
func (s *Stream) ready() {
	if !s.cfg.set {
		s.readyDefault() // kept out of line, so that ready inlines into Feed
	}
}

func (s *Stream) readyDefault() { s.configure(newConfig(nil)) }

// Parse finds the tool calls in a complete model message.
func Parse(text string) Result {
	return ParseWith(text)
}

// ParseWith is Parse with options (an allow-list of tools, formats).
func ParseWith(text string, opts ...Option) Result {
	var s Stream
	s.configure(newConfig(opts))
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
// The returned slice is reused by the next call to Feed or Flush, and
// its events must not be modified.
func (s *Stream) Feed(chunk string) []Event {
	s.ready()
	if s.eof {
		s.events = s.events[:0]
		return nil
	}
	if len(s.buf)+len(chunk) > cap(s.buf) {
		s.grow(len(chunk))
	}
	// (A view of the chunk, not []byte(chunk), which would copy a long one.)
	if s.mode == mProse && (s.started || s.pos > 0) && s.pos == len(s.buf) && len(chunk) > 0 &&
		!hasProseSpecial(unsafe.Slice(unsafe.StringData(chunk), len(chunk))) {
		// The common case, prose without markup: what advance would
		// do, without its dispatch and searches. (Reslicing in place
		// instead of append keeps the GC's write barrier out.)
		n := len(s.buf)
		s.buf = s.buf[:n+len(chunk)]
		copy(s.buf[n:], chunk)
		s.pos = len(s.buf)
		// Nothing was held before this chunk, so only a suffix ending
		// with its last byte can start "functools[": the table read on
		// the chunk (not the bytes just copied) skips most chunks.
		if s.cfg.formats&FormatTag != 0 && heldMask[chunk[len(chunk)-1]] != 0 {
			s.pos -= s.heldWords()
		}
		if s.pos <= s.shown {
			return nil
		}
		// One pointer write instead of a whole Event: this path runs
		// once per chunk of every plain reply.
		s.proseEvent[0].Text = s.str(s.shown, s.pos)
		s.shown = s.pos
		return s.proseEvent[:]
	}
	s.events = s.events[:0]
	s.buf = append(s.buf, chunk...)
	s.advance()
	return s.events
}

// grow makes room for n more bytes. Streams arrive in small chunks:
// start with room for a few kilobytes and quadruple while the buffer is
// small, then double. Every buffer left behind is garbage, and on plain
// prose the collector's work decides the cost per chunk: quadrupling
// allocates a third less than doubling for a typical reply of tens of
// kilobytes (append's gentler growth for large slices would copy a long
// message many more times).
func (s *Stream) grow(n int) {
	c := 4 * cap(s.buf)
	if c > 64<<10 {
		c = 2 * cap(s.buf)
	}
	nb := make([]byte, len(s.buf), max(4096, c, len(s.buf)+n))
	copy(nb, s.buf)
	s.buf = nb
}

// Flush marks the end of the message and returns the final events: the
// held-back text and the calls that could only be confirmed at the end
// (bare JSON, blocks whose close tag never came). Close calls it if needed.
func (s *Stream) Flush() []Event {
	s.ready()
	s.events = s.events[:0]
	if s.eof {
		return nil
	}
	s.eof = true
	s.advance()
	s.releaseCalls()
	return s.events
}

// Close ends the message and returns the Result. It equals Parse of the
// concatenation of every chunk fed. Further Feed calls are ignored.
func (s *Stream) Close() Result {
	s.ready()
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
//
// The copies are carved from a shared block (argCopies) rather than
// allocated one per call; each is clipped, so an append by the caller
// reallocates instead of writing into the next call's arguments.
func (s *Stream) ownArgs(a json.RawMessage) json.RawMessage {
	if s.src == "" {
		return slices.Clip(a)
	}
	if a == nil {
		return nil
	}
	if len(a) > cap(s.argCopies)-len(s.argCopies) {
		// Double the block, but never past a quarter of the message or
		// below what this copy needs: arguments are part of the message.
		c := min(max(2*cap(s.argCopies), 256), max(len(s.src)/4, 256))
		s.argCopies = make([]byte, 0, max(c, len(a)))
	}
	n := len(s.argCopies)
	s.argCopies = append(s.argCopies, a...)
	return json.RawMessage(s.argCopies[n:len(s.argCopies):len(s.argCopies)])
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
		case mPyFence:
			more = s.pyFenceStep()
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
			if !s.eof && s.cfg.formats&FormatTag != 0 {
				s.pos -= s.heldWords()
			}
			return false
		}
		s.pos = p
		r := s.recognize(b, p, s.eof)
		switch r.v {
		case vNeed:
			s.pos = p - r.back // hold the whole possible markup
			return false
		case vNone:
			s.pos = p + 1
		case vFence:
			s.pos = r.end
			s.mode = mFence
		case vThink:
			s.releaseCalls()
			s.flushText(p)
			s.th = think{start: p, content: r.end, shown: r.end, hold: -1, close: r.closeBy}
			s.pos = r.end
			s.mode = mThink
			return true
		case vMarkup:
			if full, _ := hasPrefixOrPartial(b[p:], thinkClose); full {
				s.retractDrafts()
			}
			s.addMarkup(p, r.end)
		case vBlock:
			s.startBlock(p-r.back, r)
			return true
		case vCandidate:
			s.startCandidate(p, p, -1)
			return true
		case vJSONFence:
			s.startCandidate(p, r.end, r.lineEnd)
			return true
		case vPyFence:
			s.startPyFence(p, r.end)
			return true
		}
	}
	return false
}

// heldWords returns how many bytes before s.pos could still become a
// word that belongs to markup recognised at a later byte: FireFunction's
// "functools[" or GigaChat 3's "function call<|role_sep|>". It runs once
// per chunk of plain prose, so it tries only the prefix lengths that the
// last byte allows (heldMask), and a byte test rejects almost all of them.
func (s *Stream) heldWords() int {
	b := s.buf[:s.pos]
	if len(b) == 0 {
		return 0
	}
	held := 0
	for m := heldMask[b[len(b)-1]]; m != 0; m &= m - 1 {
		n := bits.TrailingZeros16(m)
		k := len(b) - n
		if k < s.textStart || b[k] != 'f' || n <= held {
			continue
		}
		w := string(b[k:])
		if n <= len(functoolsWord) && w == functoolsWord[:n] ||
			n <= len(gigaWord) && w == gigaWord[:n] && gigaWordStart(b, k) {
			held = n
		}
	}
	return held
}
