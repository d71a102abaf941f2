package toolcall

// Bare JSON is a call only when it is the whole message or ends it, and
// only when it is shaped like a call: a name plus arguments under one of
// the argument keys (or, with an allow-list, a listed name with its
// arguments at the top level). The same holds for JSON alone in a ```json
// fence. So such JSON is held back as a candidate; once complete and
// call-shaped it becomes tentative, and it is confirmed only if nothing
// but whitespace, separators and further candidates follow. Anything
// else releases the whole chain as prose, except where chain.go keeps it
// (Llama 3.x calls, fenced calls that are not examples). JSON in a fence
// of another language is never considered.

type candidates struct {
	chainStart int // first byte of the first candidate of the chain
	items      []candItem
	cur        int // first byte of the current candidate (brace or fence)
	lineEnd    int // fenced: offset past the opener line; -1 for bare JSON
	jm         jsonMachine
	afterValue bool // fenced: value done, the closing fence must follow
	calls      []Call
	env        *envelope  // the current candidate is an envelope (see candidateEnvelope)
	marks      []candItem // turn tokens between and after the candidates (no calls)
}

type candItem struct {
	start, end int
	calls      []Call
	// llama: bare JSON with its arguments under "parameters", the shape
	// of Llama 3.x's JSON tool calls (see keepLlamaChain).
	llama  bool
	fenced bool      // inside a fence, which starts at start
	env    *envelope // a Yips envelope without its fence label
}

func (s *Stream) startCandidate(p, valueAt, lineEnd int) {
	c := &s.cand
	if s.mode != mTentative {
		c.chainStart = p
		c.items = c.items[:0]
		c.marks = c.marks[:0]
	}
	c.cur = p
	c.lineEnd = lineEnd
	c.afterValue = false
	c.jm.reset(valueAt)
	s.pos = valueAt
	s.mode = mCandidate
}

func (s *Stream) candidateStep() bool {
	c := &s.cand
	b := s.buf
	if !c.afterValue {
		s.pos = c.jm.run(b, s.pos)
		if c.jm.failed() {
			s.dropCandidate(c.jm.errPos)
			return true
		}
		if !c.jm.done() {
			if !s.eof {
				return false
			}
			if !c.jm.atEOF(b) {
				s.truncatedCandidate()
				return true
			}
		}
		calls, ok := s.candidateCalls(b[c.jm.start:c.jm.end], rebase(c.jm.members, c.jm.start), c.jm.rawCtl, false)
		if !ok {
			s.releaseCandidate(c.jm.end)
			return true
		}
		c.calls = calls
		if c.lineEnd < 0 {
			// Members are relative to the value since candidateCalls.
			llama := b[c.jm.start] == '{' && hasMember(b[c.jm.start:c.jm.end], c.jm.members, 0, 1, "parameters")
			c.items = append(c.items, candItem{start: c.cur, end: c.jm.end, calls: calls, llama: llama, env: c.env})
			s.pos = c.jm.end
			s.mode = mTentative
			return true
		}
		c.afterValue = true
		s.pos = c.jm.end
	}
	i := skipSpace(b, s.pos)
	if i == len(b) {
		if !s.eof {
			return false
		}
		c.items = append(c.items, candItem{start: c.cur, end: len(b), calls: c.calls, env: c.env, fenced: true})
		s.pos = len(b)
		s.mode = mTentative
		return true
	}
	end, ok, need := isFenceClose(b, i, s.eof)
	if need {
		return false
	}
	if !ok {
		s.releaseCandidate(c.jm.end)
		return true
	}
	c.items = append(c.items, candItem{start: c.cur, end: end, calls: c.calls, env: c.env, fenced: true})
	s.pos = end
	s.mode = mTentative
	return true
}

// candidateCalls interprets a complete candidate value v, whose members
// are relative to v; repaired says v is a repaired copy.
func (s *Stream) candidateCalls(v []byte, ms []member, rawCtl, repaired bool) ([]Call, bool) {
	c := &s.cand
	if c.jm.slipped {
		v = fixSlips(v)
		var ok bool
		if ms, rawCtl, ok = revalidate(v); !ok {
			return nil, false
		}
		repaired = true
	}
	c.env = nil
	var one [1]shape
	shapes := callShapes(v, ms, one[:0])
	if shapes[0].err != nil {
		return s.candidateEnvelope(v, ms, rawCtl, repaired)
	}
	calls := make([]Call, 0, len(shapes))
	for _, sh := range shapes {
		if sh.err != nil || !s.cfg.allowed(sh.call.Name) {
			return nil, false
		}
		if !sh.explicit && s.cfg.allow == nil || sh.definition {
			return nil, false
		}
		call := sh.call
		if rawCtl {
			call.Arguments = escapeControl(call.Arguments)
		}
		call.Repaired = call.Repaired || rawCtl || repaired
		call.Kind = "tool"
		call.Format = FormatJSON
		call.Arguments = s.ownArgs(call.Arguments)
		calls = append(calls, call)
	}
	return calls, true
}

// candidateEnvelope reads a Yips envelope whose fence lost its label or
// is missing: JSON that is not a call but whose keys say it is an
// envelope (see envelopeLabel). Its rules are those of a fenced one; the
// first envelope of the message is the only one.
func (s *Stream) candidateEnvelope(v []byte, ms []member, rawCtl, repaired bool) ([]Call, bool) {
	c := &s.cand
	if text, ok := genericResponse(v, ms); ok && skipGap(s.buf, 0) == c.cur {
		// llama.cpp's generic format answers without a tool as
		// {"response": "…"}: the whole message is that text.
		c.env = &envelope{text: text}
		return nil, true
	}
	yips := envelopeLabel(v, ms)
	if yips == "" || s.cfg.formats&FormatYips == 0 || s.envelopes > 0 {
		return nil, false
	}
	for _, it := range c.items {
		if it.env != nil {
			return nil, false
		}
	}
	env, ok := s.readEnvelope(v, rawCtl, yips, repaired, c.cur, c.cur+len(v))
	if !ok {
		return nil, false
	}
	c.env = &env
	return env.calls, true
}

// truncatedCandidate settles JSON the output cut short. A list of calls
// cut inside its last call keeps the complete calls before it (see
// rollback), like a cut block; anything else is dropped, because bare
// JSON is a call only when it is whole.
func (s *Stream) truncatedCandidate() {
	c := &s.cand
	b := s.buf
	if c.jm.truncation() == "" && s.truncatedToolCall() {
		return
	}
	for _, envelope := range [...]bool{false, true} {
		fixed := c.jm.rollback(b, envelope)
		if fixed == nil {
			continue
		}
		if c.jm.slipped {
			fixed = fixSlips(fixed)
		}
		ms, rawCtl, ok := revalidate(fixed)
		if !ok {
			continue
		}
		// A cut envelope may lose members of its root object; nothing
		// else may (see rollback).
		if calls, ok := s.candidateCalls(fixed, ms, rawCtl, true); ok && (!envelope || c.env != nil) {
			why := c.jm.truncation()
			s.addFailure(Failure{Format: FormatJSON, Reason: why + cutTailReason, Err: ErrTruncated, Start: c.cur, End: len(b)})
			c.items = append(c.items, candItem{start: c.cur, end: len(b), calls: calls, env: c.env})
			s.pos = len(b)
			s.mode = mTentative
			return
		}
	}
	s.dropCandidate(len(b))
}

// truncatedToolCall accepts llama.cpp's {"tool_call": {…}} cut at a value
// boundary, closed like a cut block: the wrapper says it is a call, as a
// tag would. It reports whether it did.
func (s *Stream) truncatedToolCall() bool {
	c := &s.cand
	fixed := c.jm.repair(s.buf)
	if c.jm.slipped {
		fixed = fixSlips(fixed)
	}
	ms, rawCtl, ok := revalidate(fixed)
	if !ok {
		return false
	}
	if env, ok := genericEnvelope(fixed, ms); !ok || env.kind != '{' {
		return false
	}
	calls, ok := s.candidateCalls(fixed, ms, rawCtl, true)
	if !ok {
		return false
	}
	c.items = append(c.items, candItem{start: c.cur, end: len(s.buf), calls: calls})
	s.pos = len(s.buf)
	s.mode = mTentative
	return true
}

// dropCandidate gives up on malformed or truncated JSON. Prose resumes at
// the candidate's first byte, but no bare JSON may start again before the
// point of failure, so each byte is rescanned at most once.
func (s *Stream) dropCandidate(at int) {
	c := &s.cand
	if c.lineEnd >= 0 {
		s.pos = c.lineEnd
		s.mode = mFence
		return
	}
	s.noCandUntil = max(s.noCandUntil, c.cur+1, at)
	if s.keepLlamaChain() {
		return
	}
	if s.startPyList() {
		return
	}
	s.pos = c.cur
	s.mode = mProse
}

// releaseCandidate turns complete JSON that is not a call, together with
// the chain before it, into prose.
func (s *Stream) releaseCandidate(end int) {
	c := &s.cand
	if c.lineEnd >= 0 {
		s.pos = c.lineEnd
		s.mode = mFence
		return
	}
	if s.keepLlamaChain() {
		return // prose resumes after the calls and meets this JSON again
	}
	s.pos = end
	s.mode = mProse
}

func (s *Stream) tentativeStep() bool {
	c := &s.cand
	b := s.buf
	i := s.pos
	for i < len(b) {
		if isSpace(b[i]) || b[i] == ',' || b[i] == ';' {
			i++
			continue
		}
		if b[i] != '<' {
			break
		}
		// An end-of-turn token after the JSON ({…}<|eot_id|>) still
		// leaves it at the end of the message.
		end, need := recognizeTurnToken(b, i)
		if end < 0 {
			switch r := recognizeEOS(b, i, s.eof); r.v {
			case vNeed:
				need = true
			case vMarkup:
				end = r.end
			}
		}
		// A </tool_call> after the JSON is the close of a block whose
		// opening tag the model forgot (Hermes 4 writes
		// "</think>\n{…}\n</tool_call>"): the JSON is a call whatever
		// follows.
		full, partial := false, false
		if s.cfg.formats&FormatTag != 0 {
			full, partial = hasPrefixOrPartial(b[i:], "</tool_call>")
		}
		if (need || partial) && !s.eof {
			s.pos = i
			return false
		}
		if full {
			c.marks = append(c.marks, candItem{start: i, end: i + len("</tool_call>")})
			s.confirmChain(i + len("</tool_call>"))
			return true
		}
		if end < 0 {
			break
		}
		c.marks = append(c.marks, candItem{start: i, end: end})
		i = end
	}
	s.pos = i
	if i == len(b) && !s.eof {
		return false
	}
	if i == len(b) && !s.chainIsExample() {
		s.confirmChain(len(b))
		return false
	}
	if i < len(b) {
		switch b[i] {
		case '{', '[':
			s.startCandidate(i, i, -1)
			return true
		case '`':
			if atLineStart(b, i) {
				r := s.recognizeFence(b, i, s.eof)
				if r.v == vNeed {
					return false
				}
				if r.v == vJSONFence {
					s.startCandidate(i, r.end, r.lineEnd)
					return true
				}
			}
		}
		if s.keepLlamaChain() {
			return true
		}
		if keep, need := s.keepFencedChain(i); need {
			return false
		} else if keep {
			return true
		}
	}
	// Not the end: the chain is prose. Rescan from the first token after
	// the last candidate so that it is dropped like any other.
	if n := len(c.marks); n > 0 && len(c.items) > 0 {
		last := c.items[len(c.items)-1].end
		for k := range c.marks {
			if c.marks[k].start >= last {
				s.pos = c.marks[k].start
				break
			}
		}
	}
	c.items, c.marks = c.items[:0], c.marks[:0]
	s.mode = mProse
	return true
}
