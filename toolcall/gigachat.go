package toolcall

// GigaChat 3 writes a call as a message of the role "function call":
// the role name, its <|role_sep|> token, then one JSON object with name
// and arguments (vLLM's gigachat3 parser):
//
//	Сейчас посмотрю.<|message_sep|>
//
//	function call<|role_sep|>
//	{"name": "get_weather", "arguments": {"city": "Москва"}}
//
// The role name is markup only when it starts a line (or follows a
// token) and <|role_sep|> and a JSON object follow it; <|message_sep|>
// ends the text message before such a call and is dropped with the blank
// space after it. Since recognition starts at the token's '<', the role
// name before it is held back from prose while it could still become
// this marker (Stream.heldWords).

const (
	gigaWord       = "function call"
	gigaSep        = "<|role_sep|>"
	gigaMessageSep = "<|message_sep|>"
)

// gigaOpener opens the block of one GigaChat 3 call; like GigaChat 3.1's
// <|function_call|> it has no close token.
var gigaOpener = opener{tag: gigaWord + gigaSep, format: FormatTag, soft: true}

// gigaWordStart reports whether the role name may start at q: at the
// start of the text or of a line, or right after a special token.
func gigaWordStart(b []byte, q int) bool {
	return q == 0 || b[q-1] == '\n' || b[q-1] == '>'
}

// gigaWordAt reports whether the role name ends at p and starts where
// the marker may start.
func gigaWordAt(b []byte, p int) bool {
	q := p - len(gigaWord)
	return q >= 0 && b[q] == 'f' && string(b[q:p]) == gigaWord && gigaWordStart(b, q)
}

// recognizeGigaChat matches, at the '<' at b[p], the role separator of a
// GigaChat 3 call (with the role name before it) or a message separator
// that such a call follows.
func recognizeGigaChat(b []byte, p int, eof bool) rec {
	if gigaWordAt(b, p) {
		full, partial := hasPrefixOrPartial(b[p:], gigaSep)
		if partial {
			if eof {
				return rec{v: vNone}
			}
			return rec{v: vNeed, back: len(gigaWord)}
		}
		if !full {
			return rec{v: vNone}
		}
		end := p + len(gigaSep)
		j := skipGap(b, end)
		switch {
		case j == len(b) && !eof && j-end < maxBlankGap:
			return rec{v: vNeed, back: len(gigaWord)}
		case j < len(b) && b[j] == '{':
			return rec{v: vBlock, end: end, open: &gigaOpener, format: FormatTag, back: len(gigaWord)}
		}
		return rec{v: vNone}
	}
	if ok, r := literalAt(b[p:], gigaMessageSep, eof); !ok {
		return r
	}
	end := p + len(gigaMessageSep)
	j := skipGap(b, end)
	if j == len(b) {
		if eof {
			return rec{v: vMarkup, end: j} // the message ends with it
		}
		if j-end < maxBlankGap {
			return rec{v: vNeed}
		}
		return rec{v: vNone}
	}
	if ok, r := literalAt(b[j:], gigaWord+gigaSep, eof); !ok {
		return r
	}
	return rec{v: vMarkup, end: j}
}

// heldMask has, for each byte, bit n set when a prefix of length n of
// "functools" or of GigaChat's role name ends with that byte: a chunk
// ending with a byte whose mask is 0 holds nothing.
var heldMask = func() (t [256]uint16) {
	for _, w := range [...]string{functoolsWord, gigaWord} {
		for n := 1; n <= len(w); n++ {
			t[w[n-1]] |= 1 << n
		}
	}
	return t
}()
