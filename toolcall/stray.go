package toolcall

// Stray close tokens. A reply sometimes carries the close of a structure
// whose opening it never wrote: Qwen3 and QwQ templates open <think> in
// the prompt, so the reply holds only "…reasoning.</think>"; Mistral
// templates that close calls with [/TOOL_CALLS] leave it after prose when
// the model ends its turn ("Done.[/TOOL_CALLS]"). Issue reports show the
// close at the start of a line, glued to the end of a sentence, or ending
// the message. A close named in a sentence ("Qwen ends its reasoning
// with </think> and then answers") follows a word and is followed by
// more words on its line, and stays text.

// strayCloses are the closes dropped from Text where they are markup.
var strayCloses = [...]string{thinkClose, mistralClose}

// maxStrayGap bounds the blank space looked at after a stray close.
const maxStrayGap = 64

// recognizeStrayClose matches a close of strayCloses at b[p] and decides
// whether it is markup: at the start of its line, right after markup or
// after the end of a sentence ('.', '!', '?', ':', ';', ')'), or followed
// on its line only by blank space. Elsewhere it is a mention.
func recognizeStrayClose(b []byte, p int, eof bool) rec {
	need := false
	for _, t := range strayCloses {
		full, partial := hasPrefixOrPartial(b[p:], t)
		need = need || partial
		if !full {
			continue
		}
		end := p + len(t)
		if atLineStart(b, p) || afterSentence(b, p) {
			return rec{v: vMarkup, end: end}
		}
		j := end
		for j < len(b) && j-end < maxStrayGap && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		switch {
		case j < len(b) && (b[j] == '\n' || b[j] == '\r'):
			return rec{v: vMarkup, end: end}
		case j == len(b) && eof:
			return rec{v: vMarkup, end: end}
		case j == len(b) && j-end < maxStrayGap:
			return rec{v: vNeed}
		}
		return rec{v: vNone}
	}
	if need && !eof {
		return rec{v: vNeed}
	}
	return rec{v: vNone}
}

// afterSentence reports whether the last byte before offset p on its
// line, blank space aside, ends a sentence or a piece of markup.
func afterSentence(b []byte, p int) bool {
	i := p - 1
	for i >= 0 && (b[i] == ' ' || b[i] == '\t') {
		i--
	}
	if i < 0 {
		return false
	}
	switch b[i] {
	case '.', '!', '?', ':', ';', ')', '>', ']':
		return true
	}
	return false
}
