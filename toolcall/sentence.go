package toolcall

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// Shown or made: a complete call block is a call unless something marks
// it as documentation. Line position alone is no such mark: models that
// write no newlines put calls between sentences ("I'll read it.
// <tool_call>…</tool_call> Then I'll fix it."), and the reference parsers
// (vLLM's Hermes and Granite parsers, SGLang's Qwen detector, llama.cpp's
// chat parser, Ollama's) take the tag wherever it is. The marks are:
//
//   - an inline code span around it (an odd number of backticks before it
//     on its line);
//   - a blockquote line or a table row (the line starts with '>' or '|');
//   - a quotation mark right before it;
//   - an example cue in its sentence before it ("for example", "e.g.",
//     "such as", "here's how" …; a colon-ended sentence introduces the
//     block after it), or the block as the subject of the sentence after
//     it ("<tool_call>…</tool_call> is an example");
//   - a sentence that runs on across it: the text before does not end a
//     sentence or clause (it ends with a word or a comma) and the text
//     after continues it (a lower-case word or punctuation). A block alone
//     on its lines counts the line before when it ends with a word and the
//     line after when it starts lower-case;
//   - a placeholder tool name (names.go), never a name on the allow-list.
//
// Every look is bounded: sentenceWindow bytes before the block, maxTrailGap
// bytes of blank space after it, and cues are matched in place.

// sentenceWindow bounds the look-back for a block's sentence.
const sentenceWindow = 256

// maxTrailGap bounds the blank space looked at after a block.
const maxTrailGap = 64

// mentionMark decides whether the block [start, end) is shown rather
// than made, and says why; need when the bytes after end do not decide it
// yet.
func (s *Stream) mentionMark(start, end int) (why string, need bool) {
	b := s.buf
	if s.blk.open == &harmonyCall {
		return "", false // a channel message: the text before is another message's
	}
	lo := max(0, start-sentenceWindow)
	ls := lineStart(b, lo, start)
	switch {
	case inlineCode(b, ls, start):
		return "it is inside an inline code span", false
	case quotedLine(b, ls, start):
		return "it is in a blockquote or a table row", false
	case quoteBefore(b, start):
		return "it is in quotation marks", false
	}
	// The sentence before: the text on the block's line, or the line
	// before when the block starts its line.
	before, from := lastText(b, ls, start), ls
	if before < 0 && ls > lo {
		// The line before, unless it is blank.
		i := ls - 2
		for i >= lo && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
			i--
		}
		if i >= lo && b[i] != '\n' {
			before = i
			if runsOn(b, before) || b[before] == ':' {
				from = lineStart(b, lo, i) // it runs on or introduces the block: one sentence
			}
		}
	}
	if cueBefore(b, from, start) {
		return "an example cue introduces it in its sentence", false
	}
	runs := before >= 0 && runsOn(b, before)
	after, next, need := s.textAfter(end, runs)
	if need {
		return "", true
	}
	if after >= 0 && !s.eof && !utf8.FullRune(b[after:]) {
		return "", true // a rune split across chunks
	}
	if after >= 0 && !next {
		subject, need := subjectAfter(b, after, s.eof)
		if need {
			return "", true
		}
		if subject {
			return "the sentence after it describes it", false
		}
	}
	if runs && after >= 0 && continues(b, after) {
		return "a sentence runs on across it", false
	}
	return "", false
}

// lineStart returns the start of the line holding offset at, not looking
// before lo.
func lineStart(b []byte, lo, at int) int {
	return lo + bytes.LastIndexByte(b[lo:at], '\n') + 1
}

// lastText returns the offset of the last byte before at on the line
// starting at ls that is not blank space, or -1.
func lastText(b []byte, ls, at int) int {
	for i := at - 1; i >= ls; i-- {
		if !isSpace(b[i]) {
			return i
		}
	}
	return -1
}

// inlineCode reports an odd number of backtick spans opened on the line
// before at; runs of three or more are fences, not code spans.
func inlineCode(b []byte, ls, at int) bool {
	open := false
	for i := ls; i < at; {
		k := bytes.IndexByte(b[i:at], '`')
		if k < 0 {
			break
		}
		i += k
		j := i
		for j < at && b[j] == '`' {
			j++
		}
		if j-i < 3 {
			open = !open
		}
		i = j
	}
	return open
}

// quotedLine reports a line that starts with '>' (a blockquote) or '|'
// (a table row) before the block.
func quotedLine(b []byte, ls, at int) bool {
	for i := ls; i < at; i++ {
		switch b[i] {
		case ' ', '\t':
			continue
		case '>', '|':
			return true
		}
		return false
	}
	return false
}

// quoteBefore reports a quotation mark right before the block.
func quoteBefore(b []byte, at int) bool {
	if at == 0 {
		return false
	}
	switch b[at-1] {
	case '"', '\'':
		return true
	}
	r, _ := utf8.DecodeLastRune(b[:at])
	return r == '“' || r == '‘' || r == '«' || r == '「'
}

// textAfter finds the first byte after end that is not blank space on the
// block's line, or, when the line ends there and nextLine is set, on the
// next line (next is then true); -1 when the message or the line ends
// first, or a blank line follows. need when the input may still bring it.
func (s *Stream) textAfter(end int, nextLine bool) (at int, next, need bool) {
	b := s.buf
	i := end
	for lim := end + maxTrailGap; i < len(b) && i < lim && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r'); i++ {
	}
	if i < len(b) && b[i] == '\n' && !nextLine {
		return -1, true, false
	}
	if i < len(b) && b[i] == '\n' {
		next = true
		i++
		for lim := i + maxTrailGap; i < len(b) && i < lim && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r'); i++ {
		}
		if i < len(b) && b[i] == '\n' {
			return -1, next, false
		}
	}
	if i == len(b) {
		return -1, next, !s.eof
	}
	if isSpace(b[i]) {
		return -1, next, false // a long run of blank space
	}
	return i, next, false
}

// runsOn reports text before a block that does not end a sentence or a
// clause: a word or a comma.
func runsOn(b []byte, at int) bool {
	if b[at] == ',' {
		return true
	}
	r, _ := utf8.DecodeLastRune(b[:at+1])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// continues reports text after a block that carries on the sentence
// before it: a lower-case word or punctuation that closes a phrase.
func continues(b []byte, at int) bool {
	switch b[at] {
	case ',', ';', '.', ':', '!', '?', ')':
		return true
	}
	r, _ := utf8.DecodeRune(b[at:])
	return unicode.IsLower(r)
}

// subjectAfter reports a sentence after the block, on its line, whose
// subject is the block ("<tool_call>…</tool_call> is an example"); need
// when the input ends inside one of its words.
func subjectAfter(b []byte, at int, eof bool) (yes, need bool) {
	for _, w := range [...]string{"is ", "are ", "was ", "shows ", "would "} {
		if hasFoldPrefix(b[at:], w) {
			return true, false
		}
		if n := len(b) - at; !eof && n < len(w) && foldMatch(b[at:], w[:n]) == n {
			need = true
		}
	}
	return false, need
}

// sentenceCues, in the sentence before a block, introduce it as an
// example. They are fewer than exampleCuesBefore, which look at a whole
// paragraph before a fence: "how to" or "the format" often precede a
// real call in the same paragraph.
var sentenceCues = [...]string{
	"for example", "for instance", "e.g.", "an example", "example:", "like this",
	"like so", "looks like", "look like", "would look", "such as", "here's how",
	"here is how", "format is", "syntax", "template",
}

// cueBefore reports a cue between from and at with no sentence end
// between the cue and at. It matches in place (ASCII case folded, ’ read
// as '): nothing is copied.
func cueBefore(b []byte, from, at int) bool {
	for i := from; i < at; i++ {
		if !cueFirst[b[i]] {
			continue
		}
		c := lower(b[i])
		if i > from && isLetter(b[i-1]) {
			continue // cues start words
		}
		for _, cue := range sentenceCues {
			if cue[0] == c {
				if n := foldMatch(b[i:at], cue); n > 0 && !sentenceEnds(b, i+n, at) {
					return true
				}
			}
		}
	}
	return false
}

// cueFirst marks the bytes a cue of sentenceCues can start with, in
// either case.
var cueFirst = func() (t [256]bool) {
	for _, c := range sentenceCues {
		t[c[0]], t[c[0]-'a'+'A'] = true, true
	}
	return t
}()

// sentenceEnds reports a sentence end ('.', '!' or '?' before blank
// space, or a blank line) in b[from:to].
func sentenceEnds(b []byte, from, to int) bool {
	for i := from; i < to; i++ {
		switch b[i] {
		case '.', '!', '?':
			if i+1 < to && isSpace(b[i+1]) {
				return true
			}
		case '\n':
			if i+1 < to && b[i+1] == '\n' {
				return true
			}
		}
	}
	return false
}

// foldMatch returns the length in b of lit at the start of b, comparing
// ASCII letters without case and reading ’ as ', or 0.
func foldMatch(b []byte, lit string) int {
	i := 0
	for k := 0; k < len(lit); k++ {
		if i >= len(b) {
			return 0
		}
		if lit[k] == '\'' && i+2 < len(b) && b[i] == 0xE2 && b[i+1] == 0x80 && b[i+2] == 0x99 {
			i += 3
			continue
		}
		if lower(b[i]) != lit[k] {
			return 0
		}
		i++
	}
	return i
}

// hasFoldPrefix reports lit at the start of b, ASCII case folded.
func hasFoldPrefix(b []byte, lit string) bool { return foldMatch(b, lit) > 0 }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// trailStep waits for the bytes that decide whether the finished block
// is a mention; endBlock then decides.
func (s *Stream) trailStep() bool {
	k := &s.blk
	s.endBlock(k.trailEnd) // waits in bTrail again while the bytes do not decide
	return s.mode != mBlock || k.state != bTrail
}
