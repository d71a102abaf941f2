package toolcall

// Reasoning blocks. The content of <think>…</think> is returned as
// Result.Thinking (and streamed as EventThinking), never as Text, and
// nothing inside a closed think block is a call: models rehearse calls
// while reasoning.
//
// A think block that is never closed is different: some models open
// <think>, reason, and write their call without closing it. Text inside
// is streamed as thinking until the first call opener; from there on it
// is held back. If </think> arrives, the held text is thinking after all;
// if the message ends first, the held part is parsed like any other text,
// its calls are real calls and its prose remains thinking.

type think struct {
	start   int // offset of <think> (or 0 with StartInThinking)
	content int // first content byte
	shown   int // thinking before this offset has been emitted
	hold    int // first call opener inside the block, or -1
}

func (s *Stream) emitThinking(upTo int) {
	if upTo > s.th.shown {
		if !s.silent {
			s.emit(Event{Kind: EventThinking, Text: s.str(s.th.shown, upTo)})
		}
		s.th.shown = upTo
	}
}

func (s *Stream) thinkStep() bool {
	b := s.buf
	for s.pos < len(b) {
		p := s.find.next(b, s.pos)
		if p < 0 {
			s.pos = len(b)
			break
		}
		s.pos = p
		var r rec
		switch b[p] {
		case '<':
			r = s.recognizeTag(b, p, s.eof, true)
		case '[':
			if s.cfg.formats&FormatMistral != 0 {
				full, partial := hasPrefixOrPartial(b[p:], mistralTag)
				if full {
					r.v = vBlock
				} else if partial && !s.eof {
					r.v = vNeed
				}
			}
		case '`':
			if atLineStart(b, p) {
				r = s.recognizeFence(b, p, s.eof)
				if r.v != vNeed && (r.v != vBlock || r.format != FormatYips) {
					r.v = vNone
				}
			}
		}
		switch r.v {
		case vNeed:
			s.thinkEmit()
			return false
		case vThink: // </think>
			s.endThink(p, r.end)
			return true
		case vBlock:
			if s.th.hold < 0 {
				s.th.hold = p
			}
		}
		s.pos = p + 1
	}
	if s.eof {
		s.endThinkAtEOF()
		return false
	}
	s.thinkEmit()
	return false
}

func (s *Stream) thinkEmit() {
	lim := s.pos
	if s.th.hold >= 0 {
		lim = s.th.hold
	}
	s.emitThinking(lim)
}

// endThink closes the block whose </think> spans [p, end).
func (s *Stream) endThink(p, end int) {
	s.emitThinking(p)
	t := s.str(s.th.content, p)
	s.res.Segments = append(s.res.Segments, Segment{Kind: SegmentThinking, Start: s.th.start, End: end, Text: t})
	s.textStart, s.shown = end, end
	s.pos = end
	s.mode = mProse
}

// endThinkAtEOF settles a think block the message never closed.
func (s *Stream) endThinkAtEOF() {
	n := len(s.buf)
	if s.th.hold < 0 {
		s.emitThinking(n)
		t := s.str(s.th.content, n)
		s.res.Segments = append(s.res.Segments, Segment{Kind: SegmentThinking, Start: s.th.start, End: n, Text: t})
		s.textStart, s.shown, s.pos = n, n, n
		s.mode = mProse
		return
	}
	h := s.th.hold
	s.emitThinking(h)
	t := s.str(s.th.content, h)
	s.res.Segments = append(s.res.Segments, Segment{Kind: SegmentThinking, Start: s.th.start, End: h, Text: t})

	// Parse the held tail on its own; its prose stays thinking.
	sub := NewStream(WithFormats(s.cfg.formats &^ FormatJSON))
	sub.cfg.allow = s.cfg.allow
	sub.buf = s.buf[h:n:n]
	if s.src != "" {
		sub.src = s.src[h:n]
	}
	sub.silent = true
	sub.eof = true
	sub.advance()
	r := sub.Close()
	base := len(s.res.Calls)
	for _, c := range r.Calls {
		c.Start += h
		c.End += h
		s.res.Calls = append(s.res.Calls, c)
	}
	for _, seg := range r.Segments {
		seg.Start += h
		seg.End += h
		switch seg.Kind {
		case SegmentText, SegmentThinking:
			seg.Kind = SegmentThinking
			if seg.Text != "" {
				s.emit(Event{Kind: EventThinking, Text: seg.Text})
			}
		case SegmentCall:
			for i := range seg.Calls {
				seg.Calls[i] += base
				c := &s.res.Calls[seg.Calls[i]]
				s.emit(Event{Kind: EventCall, Format: c.Format, Name: c.Name, Index: seg.Calls[i], Call: c})
			}
			if seg.Text != "" { // an envelope's assistant_text
				s.emit(Event{Kind: EventText, Text: seg.Text})
			}
		}
		s.res.Segments = append(s.res.Segments, seg)
	}
	for _, f := range r.Failures {
		f.Start += h
		f.End += h
		s.res.Failures = append(s.res.Failures, f)
	}
	for _, w := range r.Warnings {
		w.Start += h
		w.End += h
		s.res.Warnings = append(s.res.Warnings, w)
	}
	s.textStart, s.shown, s.pos = n, n, n
	s.th.shown = n
	s.mode = mProse
}
