package toolcall

import "bytes"

// After a block fails, skipStep finds where it ends so that its whole raw
// text can be reported and kept as prose: at its close tag (included), at
// the next opener of the same kind (so a malformed block never swallows a
// valid one after it), at the fence that closes an envelope, or — for
// syntaxes without a close tag — where the problem was found.

type skipState struct {
	err    error
	reason string
	end    int  // the block's end when already known, else -1
	quiet  bool // not a failure: the markup was an ordinary word
}

func (s *Stream) skipStep() bool {
	k := &s.blk
	b := s.buf
	end := s.skip.end
	switch ct := k.closeTag(); {
	case end >= 0:
	case ct != "" && k.format != FormatMistral: // [/TOOL_CALLS] is optional
		opener := functionOpen
		if k.open != nil {
			opener = k.open.tag
		}
		for s.pos < len(b) {
			j := bytes.IndexByte(b[s.pos:], '<')
			if j < 0 {
				s.pos = len(b)
				break
			}
			q := s.pos + j
			fullC, partC := hasPrefixOrPartial(b[q:], ct)
			fullO, partO := hasPrefixOrPartial(b[q:], opener)
			if fullC {
				end = q + len(ct)
				break
			}
			if fullO && q > k.start {
				end = q
				break
			}
			if (partC || partO) && !s.eof {
				s.pos = q
				return false
			}
			s.pos = q + 1
		}
	case k.format == FormatYips:
		for s.pos < len(b) {
			j := bytes.IndexByte(b[s.pos:], '`')
			if j < 0 {
				s.pos = len(b)
				break
			}
			q := s.pos + j
			e, ok, need := isFenceClose(b, q, s.eof)
			if need {
				s.pos = q
				return false
			}
			if ok {
				end = e
				break
			}
			s.pos = q + 1
		}
	default:
		end = s.pos
	}
	if end < 0 {
		if !s.eof {
			return false
		}
		end = len(b)
	}
	if !s.skip.quiet {
		s.addFailure(Failure{Format: k.format, Reason: s.skip.reason, Err: s.skip.err, Start: k.start, End: end})
	}
	s.pos = end
	s.mode = mProse
	return true
}
