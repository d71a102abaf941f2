package toolcall

// Settling a chain of candidates: which chains become calls when prose
// follows them, and how a confirmed chain becomes segments.

// dropSemicolon makes the gap [from, to) between two calls markup when
// it is a ";" with blank space around it, the separator of Llama 3.x.
func (s *Stream) dropSemicolon(from, to int) {
	semi := false
	for _, ch := range s.buf[from:to] {
		switch {
		case ch == ';' && !semi:
			semi = true
		case !isSpace(ch):
			return
		}
	}
	if semi {
		s.addMarkup(from, to)
	}
}

// keepLlamaChain confirms a chain of Llama 3.x calls that prose follows,
// and reports whether it did. Llama 3.x's template asks for
// {"name": …, "parameters": {…}} and joins several calls with ";", and
// the models write prose before and after them. Such a chain is kept when
// every item has that shape and a function's name, and the first starts
// a line or follows a colon ("Here is the result: {…}"): an example in
// the middle of a sentence ("looks like {…} and returns") stays prose,
// and so does a chain introduced as an example (example.go). Prose
// resumes right after the last call, so braces in it start candidates of
// their own and can neither break nor join the chain. A turn token
// between the calls and the prose keeps the chain prose: the model went
// on after ending its turn.
func (s *Stream) keepLlamaChain() bool {
	c := &s.cand
	if len(c.items) == 0 {
		return false
	}
	for _, it := range c.items {
		if !it.llama || !functionNames(it.calls) {
			return false
		}
	}
	if p := c.items[0].start; !atLineStart(s.buf, p) && !afterColon(s.buf, p) || introducedAsExample(s.buf, p) {
		return false
	}
	last := c.items[len(c.items)-1].end
	for _, m := range c.marks {
		if m.start >= last { // {…}<|eot_id|> then prose
			return false
		}
	}
	s.confirmChain(last)
	return true
}

// keepFencedChain confirms a chain of fenced calls that the prose at p
// follows, unless the prose or the text before the first fence marks
// them as examples (see example.go). need reports that the prose at p is
// too short yet to decide.
func (s *Stream) keepFencedChain(p int) (keep, need bool) {
	c := &s.cand
	if len(c.items) == 0 || len(c.marks) > 0 {
		return false, false
	}
	for _, it := range c.items {
		if !it.fenced {
			return false, false
		}
	}
	example, need := s.fencedExampleAt(c.items[0].start, p)
	if example {
		s.noteExample(c.items[0].start)
	}
	if need || example {
		return false, need
	}
	s.confirmChain(c.items[len(c.items)-1].end)
	return true, false
}

// chainIsExample reports whether the chain, which ends the message, is
// introduced as an example (example.go); a fenced chain also when an
// earlier fence of the message was one.
func (s *Stream) chainIsExample() bool {
	c := &s.cand
	first := c.items[0]
	if first.fenced {
		return s.fenceIsExample(first.start)
	}
	return introducedAsExample(s.buf, first.start)
}

// functionNames reports whether every call is named like a function
// (letters, digits, '_' and '.'), as Llama's tool names are: JSON such as
// {"name": "my-app", "parameters": {…}} in prose is a config file.
func functionNames(calls []Call) bool {
	for _, c := range calls {
		for i, r := range c.Name {
			ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
				i > 0 && (r == '.' || r >= '0' && r <= '9')
			if !ok {
				return false
			}
		}
	}
	return true
}

// afterColon reports whether a colon and blank space precede offset p.
func afterColon(b []byte, p int) bool {
	for p > 0 && (b[p-1] == ' ' || b[p-1] == '\t') {
		p--
	}
	return p > 0 && b[p-1] == ':'
}

// confirmChain makes the candidates of the chain calls, drops the tokens
// among and after them and the ";" that joins calls, and resumes prose at
// end.
func (s *Stream) confirmChain(end int) {
	c := &s.cand
	m := 0
	for i, it := range c.items {
		if i > 0 {
			s.dropSemicolon(c.items[i-1].end, it.start)
		}
		for ; m < len(c.marks) && c.marks[m].start < it.start; m++ {
			s.addMarkup(c.marks[m].start, c.marks[m].end)
		}
		seq := s.blocks
		s.blocks++
		for j := range it.calls {
			it.calls[j].Start, it.calls[j].End = it.start, it.end
		}
		text := ""
		if it.env != nil {
			text = it.env.text
			for _, w := range it.env.warnings {
				s.addWarning(w)
			}
			s.envelopes++
		}
		s.addCallSegment(it.start, it.end, text, it.calls, seq)
	}
	for ; m < len(c.marks); m++ {
		s.addMarkup(c.marks[m].start, c.marks[m].end)
	}
	s.pos = end
	c.items, c.marks = c.items[:0], c.marks[:0]
	s.mode = mProse
}
