package toolcall

import "bytes"

// Call markup written inside a sentence is a mention, not a call:
//
//	Wrap calls like <tool_call>{"name": "x", "arguments": {}}</tool_call> in your reply.
//	Mistral models emit [TOOL_CALLS]get_weather{"city": "Paris"} which vLLM parses.
//	Use `<tool_call>{…}</tool_call>` to call a tool.
//
// Real calls end their line: in peers' tests and model transcripts the
// markup is followed by the end of the message, a line break or more
// markup, and prose before it on the same line is common ("Let me
// check.<tool_call>…", "Sure. [TOOL_CALLS]…"). So a block that starts
// after prose on its line and is followed on the same line by more prose
// is text; so is a block inside an inline code span (after a backtick).
// A block that starts its line, or spans lines, stays a call whatever
// follows it, and so do the multi-token sections of Kimi and DeepSeek
// and harmony messages, which models do not write as mentions.

// maxTrailGap bounds the blank space looked at after a block.
const maxTrailGap = 64

// inSentence decides whether the block [start, end) is a mention in a
// sentence; need when the bytes after end do not decide it yet.
func (s *Stream) inSentence(start, end int) (mention, need bool) {
	b, k := s.buf, &s.blk
	if k.multiToken() {
		return false, false
	}
	if start > 0 && b[start-1] == '`' {
		return true, false
	}
	if !textBeforeOnLine(b, start) || bytes.IndexByte(b[start:end], '\n') >= 0 {
		return false, false // it starts its line, or spans lines: not in a sentence
	}
	j := end
	for j < len(b) && j-end < maxTrailGap && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	if j == len(b) {
		return false, !s.eof
	}
	switch b[j] {
	case '\n', '\r', '<', '[', ' ', '\t':
		return false, false
	}
	return true, false
}

// textBeforeOnLine reports whether something other than blank space
// precedes offset at on its line.
func textBeforeOnLine(b []byte, at int) bool {
	for i := at - 1; i >= 0 && b[i] != '\n'; i-- {
		if !isSpace(b[i]) {
			return true
		}
	}
	return false
}

// trailStep waits for the bytes that decide whether the finished block
// is a mention; endBlock then decides.
func (s *Stream) trailStep() bool {
	k := &s.blk
	if _, need := s.inSentence(k.start, k.trailEnd); need {
		return false
	}
	s.endBlock(k.trailEnd)
	return true
}

// multiToken reports the structures models do not write as a mention or
// an aside: Kimi and DeepSeek sections and harmony messages, whose text
// before the block is another channel's.
func (k *block) multiToken() bool {
	return k.open != nil && (k.open.items != nil || k.open == &harmonyCall)
}
