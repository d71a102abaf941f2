package toolcall

import "bytes"

// Gemma 3 writes its calls as Python in a ```tool_code fence, one call
// per line, often wrapped in print() (Google's Gemma function-calling
// guide; Ollama and llama.cpp issue reports):
//
//	```tool_code
//	print(get_weather(city="Paris"))
//	```
//
// Such a fence is read as calls only with an allow-list that names every
// function in it, and then it is a fenced candidate like a ```json call:
// it counts only where the fence ends the message or prose that does not
// explain it follows (chain.go). Anything else in the fence is code and
// stays text. A fence is at most maxPyList bytes.

// pyFence is the state of a ```tool_code fence being read.
type pyFence struct {
	start   int  // the opening ```
	content int  // first byte after the opener line
	line    int  // start of the line being checked for the closing fence
	scan    int  // no line break in [line, scan): resume the search here
	checked bool // the line at line was found not to close the fence
}

// pyFenceAt reports whether the tool_code fence content at b[j] may be
// Python calls (it starts with a name or a list of them); need when the
// buffer ends before that is decided.
func (s *Stream) pyFenceAt(b []byte, j int, eof bool) (ok, need bool) {
	if s.cfg.allow == nil || s.cfg.formats&FormatPythonic == 0 {
		return false, false
	}
	if b[j] == '[' {
		j = skipGap(b, j+1)
		if j == len(b) {
			return false, !eof
		}
	}
	return b[j] == '_' || b[j]|0x20 >= 'a' && b[j]|0x20 <= 'z', false
}

// startPyFence begins reading the fence at p whose opener line ends at
// content.
func (s *Stream) startPyFence(p, content int) {
	s.pyf = pyFence{start: p, content: content, line: content, scan: content}
	s.pos = content
	s.mode = mPyFence
}

// pyFenceStep looks for the closing fence one line at a time, each byte
// once: a line is checked for the fence until that is decided, then its
// end is searched from where the last search stopped.
func (s *Stream) pyFenceStep() bool {
	f := &s.pyf
	b := s.buf
	for {
		if f.scan-f.content >= maxPyList {
			s.pyFenceCode()
			return true
		}
		if !f.checked {
			end, ok, need := isFenceClose(b, f.line, s.eof)
			if need {
				return false
			}
			if ok {
				s.pyFenceDone(f.line, end)
				return true
			}
			f.checked = true
		}
		nl := bytes.IndexByte(b[f.scan:], '\n')
		if nl < 0 {
			f.scan = len(b)
			if !s.eof {
				s.pos = len(b)
				return false
			}
			// The message ends inside the fence: what is there is complete.
			s.pyFenceDone(len(b), len(b))
			return true
		}
		f.line = f.scan + nl + 1
		f.scan, f.checked = f.line, false
		s.pos = f.line
	}
}

// pyFenceDone parses the fence content b[content:q]; end is past the
// closing fence.
func (s *Stream) pyFenceDone(q, end int) {
	f := &s.pyf
	calls, ok := s.pyFenceCalls(s.buf[f.content:q])
	if !ok {
		s.pyFenceCode()
		return
	}
	// A tool_code fence always starts a chain: one after a JSON
	// candidate is not read as calls (candidate.go), so nothing chains.
	c := &s.cand
	c.chainStart = f.start
	c.items = c.items[:0]
	c.marks = c.marks[:0]
	c.items = append(c.items, candItem{start: f.start, end: end, calls: calls, fenced: true})
	s.pos = end
	s.mode = mTentative
}

// pyFenceCalls reads a list of calls, or one call per line, each
// optionally wrapped in print(…). Every name must be allow-listed.
func (s *Stream) pyFenceCalls(code []byte) ([]Call, bool) {
	code = bytes.TrimSpace(code)
	calls, ok := parsePythonCalls(code, true)
	if !ok {
		calls = nil
		for line := range bytes.Lines(code) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if inner, ok := bytes.CutPrefix(line, []byte("print(")); ok && bytes.HasSuffix(inner, []byte(")")) {
				line = inner[:len(inner)-1]
			}
			one, ok := parsePythonCalls(line, false)
			if !ok {
				return nil, false
			}
			calls = append(calls, one...)
		}
	}
	if len(calls) == 0 {
		return nil, false
	}
	for i := range calls {
		if !s.cfg.allowed(calls[i].Name) {
			return nil, false
		}
		calls[i].Format = FormatPythonic
	}
	return calls, true
}

// pyFenceCode gives the fence back to prose as code.
func (s *Stream) pyFenceCode() {
	s.pos = s.pyf.content
	s.mode = mFence
}
