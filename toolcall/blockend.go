package toolcall

// What may follow a block's close tag and still belong to it.

// orphanClose ends a bare <function=…> block, absorbing the </tool_call>
// that Qwen3-Coder writes after it when it forgot the opening tag
// (Ollama issues #16686 and #17742): without it the close tag would show
// as text.
func (s *Stream) orphanClose() bool {
	b := s.buf
	end := s.pos
	i := skipSpace(b, end)
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
	i := skipSpace(b, tagEnd)
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
		j := skipSpace(b, end)
		if j == len(b) && !s.eof {
			return false
		}
		example, need := j == len(b) && introducedAsExample(b, s.blk.start), false
		if j < len(b) && b[j] != '<' && b[j] != '`' && b[j] != '[' {
			example, need = fencedExampleAt(b, s.blk.start, j, s.eof)
		}
		if need {
			return false
		}
		if example {
			// Not a Failure anyone needs to see: the text stays.
			s.failBlock(end, ErrNotACall, "a fenced example, not a call")
			s.skip.end, s.skip.quiet = end, true
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
