package toolcall

// Streaming a bare pythonic list of calls (see python.go). A '[' that
// did not parse as JSON is scanned as Python: brackets are counted
// outside string literals until the list closes, each byte once. The
// closed list is converted in one pass; if every element is a call of an
// allow-listed tool, it joins the chain of candidates that must end the
// message (candidate.go). Anything else is prose.
//
// Cost stays linear: a list must start a line, and a list that fails
// keeps any other from starting inside the span it scanned, so each byte
// is scanned as Python at most once. A list is at most maxPyList bytes.

const maxPyList = 64 << 10

type pyList struct {
	start int  // the '['
	depth int  // open brackets
	quote byte // the open string's quote, or 0
	esc   bool // after a backslash inside a string
}

// startPyList turns the dropped JSON candidate at s.cand.cur into a
// pythonic list when that is possible. It reports whether it did.
func (s *Stream) startPyList() bool {
	c := &s.cand
	if s.cfg.formats&FormatPythonic == 0 || s.cfg.allow == nil || s.buf[c.cur] != '[' ||
		c.cur < s.pyNoStart || !atLineStart(s.buf, c.cur) {
		return false
	}
	s.py = pyList{start: c.cur}
	s.pos = c.cur
	s.mode = mPyList
	return true
}

func (s *Stream) pyListStep() bool {
	end, done, bad := s.py.scan(s.buf, s.pos)
	s.pos = end
	switch {
	case done:
		s.pyListDone()
	case bad || s.eof:
		s.pyListFail()
	default:
		return false
	}
	return true
}

// scan reads Python source from pos, counting brackets outside string
// literals, each byte once. It returns the offset just past the bracket
// that closes the one at l.start (done), or where the source stopped
// being a bounded literal (bad: a string runs past a line end, or the
// value exceeds maxPyList), or len(b) when it needs more input.
func (l *pyList) scan(b []byte, pos int) (end int, done, bad bool) {
	for ; pos < len(b); pos++ {
		if pos-l.start >= maxPyList {
			return pos, false, true
		}
		ch := b[pos]
		if l.quote != 0 {
			switch {
			case l.esc:
				l.esc = false
			case ch == '\\':
				l.esc = true
			case ch == l.quote:
				l.quote = 0
			case ch == '\n':
				return pos, false, true
			}
			continue
		}
		switch ch {
		case '"', '\'':
			l.quote = ch
		case '[', '(', '{':
			l.depth++
		case ']', ')', '}':
			l.depth--
			if l.depth == 0 {
				return pos + 1, true, false
			}
		}
	}
	return pos, false, false
}

func (s *Stream) pyListDone() {
	l := &s.py
	calls, ok := parsePythonCalls(s.buf[l.start:s.pos], true)
	if !ok {
		s.pyListFail()
		return
	}
	for i := range calls {
		if !s.cfg.allowed(calls[i].Name) {
			s.pyListFail()
			return
		}
		calls[i].Format = FormatPythonic
	}
	c := &s.cand
	c.items = append(c.items, candItem{start: l.start, end: s.pos, calls: calls})
	s.mode = mTentative
}

// pyListFail makes the list prose, as a dropped JSON candidate would be.
func (s *Stream) pyListFail() {
	s.pyNoStart = max(s.pos, s.py.start+1)
	s.pos = s.py.start
	s.mode = mProse
}
