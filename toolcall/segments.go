package toolcall

import "slices"

// Turning scanned spans into segments and events: prose released for
// display, calls, markup, failures and warnings.

func (s *Stream) emit(e Event) {
	if !s.silent {
		s.events = append(s.events, e)
	}
}

// displayLimit is the offset up to which prose is settled.
func (s *Stream) displayLimit() int {
	switch s.mode {
	case mProse, mFence:
		return s.pos
	case mCandidate, mTentative, mPyList:
		return s.cand.chainStart
	case mPyFence:
		return s.pyf.start
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
		// Calls are never modified once reported, so the event may point
		// at the element even if the slice later grows.
		if s.holdingCalls() {
			if !s.silent {
				s.held = append(s.held, heldCall{block})
			}
			continue
		}
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
