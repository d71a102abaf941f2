package toolcall

import "slices"

// Draft calls in reasoning the template opened in the prompt. Qwen3, QwQ
// and GLM-4.7 templates end the prompt with <think>, so the reply holds
// "…reasoning…</think>" and the only sign that the text before was
// reasoning is that orphan close. Models rehearse calls there ("I could
// delete it: <tool_call>…</tool_call> No, read it first.") and a call
// before the orphan close is a draft, not a call. So until the message
// shows its first reasoning tag, its calls are held: a stream reports
// them at that tag (an opening <think> settles that nothing before was
// reasoning) or at Flush; an orphan </think> turns them into markup that
// runs nothing. Text already shown is never taken back, and the calls'
// markup was never shown. With StartInThinking the reasoning is explicit
// and nothing is held.

// heldCall is a call whose EventCall waits (only streams with events
// keep them).
type heldCall struct{ block int }

// holdingCalls reports whether calls found now are still held.
func (s *Stream) holdingCalls() bool { return !s.reasoned && !s.cfg.thinking }

// releaseCalls ends the hold: no orphan close can come before what is
// read next, so the held calls are reported.
func (s *Stream) releaseCalls() {
	if s.reasoned {
		return
	}
	s.reasoned = true
	if !s.silent {
		s.events = slices.Grow(s.events, len(s.held))
	}
	for i, h := range s.held {
		c := &s.res.Calls[i]
		s.emit(Event{Kind: EventCall, Block: h.block, Format: c.Format, Name: c.Name, Index: i, Call: c})
	}
	s.held = nil
}

// retractDrafts handles an orphan </think> while calls are held: every
// call so far was drafted in reasoning. Their segments stay (their text,
// if any, was shown) but hold no calls.
func (s *Stream) retractDrafts() {
	if s.reasoned || s.cfg.thinking {
		return
	}
	s.reasoned = true
	if len(s.res.Calls) == 0 {
		return
	}
	s.res.Calls = s.res.Calls[:0]
	for i := range s.res.Segments {
		s.res.Segments[i].Calls = nil
	}
	s.segCalls = s.segCalls[:0]
	s.held = nil
}
