package toolcall

import "errors"

// How a block ends: what may follow its close tag and still belong to
// it, and completing or failing it.

// orphanClose ends a bare <function=…> block, absorbing the </tool_call>
// that Qwen3-Coder writes after it when it forgot the opening tag
// (Ollama issues #16686 and #17742): without it the close tag would show
// as text.
func (s *Stream) orphanClose() bool {
	b := s.buf
	end := s.pos
	i := skipGap(b, end)
	full, partial := hasPrefixOrPartial(b[i:], "</tool_call>")
	if (partial || i == len(b)) && !s.eof {
		return false
	}
	if full {
		end = i + len("</tool_call>")
	}
	s.endBlock(end)
	return true
}

// fenceClose absorbs the ``` that closes a fence wrapping a tag block,
// unless prose after it shows the fence was an example (example.go).
func (s *Stream) fenceClose() bool {
	b := s.buf
	tagEnd := s.pos
	i := skipGap(b, tagEnd)
	if i == len(b) {
		if !s.eof {
			return false
		}
		s.endBlock(tagEnd)
		return true
	}
	end, ok, need := isFenceClose(b, i, s.eof)
	if need {
		return false
	}
	if ok {
		j := skipGap(b, end)
		if j == len(b) && !s.eof {
			return false
		}
		example, need := j == len(b) && s.fenceIsExample(s.blk.start), false
		if j < len(b) && b[j] != '<' && b[j] != '`' && b[j] != '[' {
			example, need = s.fencedExampleAt(s.blk.start, j)
		}
		if need {
			return false
		}
		if example {
			s.noteExample(s.blk.start)
			s.mention(end, "the fence around it is shown as an example")
			return true
		}
		s.endBlock(end)
		return true
	}
	// The fence stays open. Another call block may follow inside it;
	// anything else makes the rest of the fence ordinary code.
	var r rec
	if b[i] == '<' || b[i] == '[' {
		r = s.recognize(b, i, s.eof)
		if r.v == vNeed {
			return false
		}
	}
	s.endBlock(tagEnd)
	if r.v == vBlock {
		r.fenced = true
		s.startBlock(i, r)
		return true
	}
	s.mode = mFence
	return true
}

// closeTag returns the tag that ends the current block, if any.
func (k *block) closeTag() string {
	switch {
	case k.open != nil:
		return k.open.close
	case k.format == FormatFunctionTag:
		return functionClose
	case k.format == FormatMistral:
		return mistralClose
	}
	return ""
}

// singleItem reports block kinds that hold exactly one JSON item.
func (k *block) singleItem() bool {
	return k.name != "" || k.format == FormatMistral || k.format == FormatYips || k.format == FormatFunctionary
}

func (k *block) describe() string {
	switch {
	case k.open != nil:
		return k.open.tag
	case k.format == FormatFunctionTag:
		return "<function=" + k.name + ">"
	case k.format == FormatMistral:
		return mistralTag
	case k.format == FormatPythonTag:
		return pythonTag
	case k.py != nil:
		return k.py.open
	case k.format == FormatFunctionary:
		return ">>>" + k.name
	case k.format == FormatYips:
		return "```" + k.yips
	}
	return k.format.String()
}

// endBlock completes the block at end (exclusive), unless it turns out
// to be a mention in a sentence (sentence.go); while the text after it
// cannot decide that yet, the block waits in bTrail.
func (s *Stream) endBlock(end int) {
	k := &s.blk
	if k.items == 0 && k.failedItems == 0 {
		s.failBlock(end, ErrTruncated, "output ended before the call's JSON")
		return
	}
	why, need := s.mentionMark(k.start, end)
	if need {
		k.state, k.trailEnd = bTrail, end
		s.pos = end
		return
	}
	if len(k.calls) == 0 {
		why = "" // only broken items: each is reported already
	} else if why == "" && !k.multiToken() && hypotheticalIntro(s.buf, k.start) {
		why = "the line before introduces it as hypothetical or refused"
	}
	if why == "" {
		why = s.placeholderCall(k.calls)
	}
	if why != "" {
		s.mention(end, why)
		return
	}
	if k.format == FormatYips {
		s.envelopes++
	}
	for i := range k.calls {
		k.calls[i].Start, k.calls[i].End = k.start, end
	}
	for _, w := range k.warnings {
		s.addWarning(w)
	}
	text := k.envText
	if k.dropText != "" {
		text += k.dropText
	}
	s.addCallSegment(k.start, end, text, k.calls, k.seq)
	k.calls = k.calls[:0]
	s.pos = end
	s.mode = mProse
}

// mention gives up on a complete block that the text shows rather than
// makes: its text stays prose, and a Failure wrapping ErrMention says why,
// so that an agent can tell the model the call was not run.
func (s *Stream) mention(end int, why string) {
	s.failBlock(end, ErrMention, "a call shown, not made, so it was not run: "+why)
	s.skip.end = end
}

// failBlock gives up on the current block. at is where the problem was
// found; the block's end is found by skipStep, and its text stays prose.
func (s *Stream) failBlock(at int, err error, reason string) {
	k := &s.blk
	k.calls = k.calls[:0]
	s.skip = skipState{err: err, reason: reason, end: -1}
	if k.open != nil && k.open.soft && errors.Is(err, ErrNotACall) {
		// <response>{"answer": 42}</response> is just text, not a broken call.
		s.skip.quiet = true
	}
	s.pos = max(at, s.pos)
	if s.pos > len(s.buf) {
		s.pos = len(s.buf)
	}
	s.mode = mSkip
}

// multiToken reports the structures whose text before the block is
// another channel's (harmony messages) or that a hedging line does not
// introduce (Kimi and DeepSeek sections).
func (k *block) multiToken() bool {
	return k.open != nil && (k.open.items != nil || k.open == &harmonyCall)
}
