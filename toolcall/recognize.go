package toolcall

// Recognising markup at a trigger byte. Every recognizer looks only at a
// bounded window after the trigger and answers one of: this is markup
// (and how it continues), this is not markup, or "need more bytes". Need
// is only answered before the end of input, so the answer never depends
// on how the text was split.

type verdict uint8

const (
	vNone      verdict = iota // not markup: the trigger byte is prose
	vNeed                     // undecided until more bytes arrive
	vBlock                    // a call block opens
	vThink                    // <think> opens
	vCandidate                // bare JSON may start here
	vFence                    // a fence of another language opens
	vJSONFence                // a ```json fence holding a JSON value
	vMarkup                   // a control token: dropped from Text
	vPyFence                  // a ```tool_code fence that may hold Python calls
)

const (
	thinkClose     = "</think>"
	functionOpen   = "<function="
	functionClose  = "</function>"
	pythonTag      = "<|python_tag|>"
	mistralTag     = "[TOOL_CALLS]"
	mistralClose   = "[/TOOL_CALLS]" // some templates close the calls
	mistralArgs    = "[ARGS]"
	mistralCallID  = "[CALL_ID]"
	fenceMark      = "```"
	maxNameLen     = 128
	maxFenceInfo   = 256
	functionaryTag = ">>>"
)

// thinkTags pairs each reasoning opener with its close: <think> (Qwen3,
// DeepSeek-R1, QwQ…), Command R7B's <|START_THINKING|> and Seed-OSS's
// <seed:think>.
var thinkTags = [...]struct{ open, close string }{
	{"<think>", thinkClose},
	{"<|START_THINKING|>", "<|END_THINKING|>"},
	{"<seed:think>", "</seed:think>"},
	{"<|inner_prefix|>", "<|inner_suffix|>"},
}

// turnTokens are special tokens that end or frame a turn. Runtimes that
// render special tokens as text leave them in the output (Llama 3.x
// <|eom_id|> after a call, Command R7B's <|START_RESPONSE|> framing, a
// trailing <|im_end|>); they are dropped from Text where they can only be
// markup (see turnTokenInPlace). A </think> outside any think block is
// dropped too where it can only be markup (stray.go): the templates of
// QwQ and Qwen3 open <think> in the prompt, so the reply carries only the
// close. The reasoning before it stays in
// Text, because a stream has already shown it; use StartInThinking to
// get it as Thinking.
var turnTokens = []string{
	"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<|endoftext|>",
	"<|end_of_text|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>",
	"<|return|>", "<|eot|>", "<|eom|>", fv2Stop, "<｜end▁of▁sentence｜>",
}

// turnTokenInPlace decides whether the turn token at [p,end) is markup:
// at the start of the message, at its end (only blank space follows),
// glued to markup before it ("</tool_call><|im_end|>"), or followed by a
// harmony header (a commentary preamble's
// "…weather.<|end|><|start|>assistant…"). Elsewhere it is a mention in
// prose ("Llama ends turns with <|eot_id|> tokens") and stays.
func turnTokenInPlace(b []byte, p, end int, eof bool) rec {
	if p > 0 && b[p-1] == '>' || p <= 64 && skipSpace(b[:p], 0) == p {
		return rec{v: vMarkup, end: end}
	}
	j := skipSpace(b[:min(len(b), end+64)], end)
	for _, h := range [...]string{harmonyStart, harmonyChannel, fv2From} {
		full, partial := hasPrefixOrPartial(b[j:], h)
		if full {
			return rec{v: vMarkup, end: end}
		}
		if partial && !eof {
			return rec{v: vNeed}
		}
	}
	switch {
	case j == len(b) && eof:
		return rec{v: vMarkup, end: end}
	case j == len(b) && j-end < 64:
		return rec{v: vNeed}
	}
	return rec{v: vNone}
}

// recognizeTurnToken matches a turnToken at b[p]: (end, need).
func recognizeTurnToken(b []byte, p int) (end int, need bool) {
	for _, t := range turnTokens {
		full, partial := hasPrefixOrPartial(b[p:], t)
		if full {
			return p + len(t), false
		}
		need = need || partial
	}
	return -1, need
}

// eosTag is the end-of-sequence token of Llama 2 and Mistral models.
// It is also HTML's strikethrough close, so it is markup only when
// nothing but blank space follows it to the end of the message.
const eosTag = "</s>"

func recognizeEOS(b []byte, p int, eof bool) rec {
	full, partial := hasPrefixOrPartial(b[p:], eosTag)
	if partial && !eof {
		return rec{v: vNeed}
	}
	if !full {
		return rec{v: vNone}
	}
	end := p + len(eosTag)
	j := skipSpace(b[:min(len(b), end+64)], end)
	switch {
	case j == len(b) && eof:
		return rec{v: vMarkup, end: end}
	case j == len(b) && j-end < 64:
		return rec{v: vNeed}
	}
	return rec{v: vNone}
}

var llamaEnds = []string{"<|eom_id|>", "<|eot_id|>"}

// rec is a recognizer's answer.
type rec struct {
	v       verdict
	end     int // where the content after the markup begins
	open    *opener
	format  Format
	name    string // tool name carried by the markup
	fenced  bool   // a call-capable fence opened at the trigger
	lineEnd int    // for fences: offset just past the opener line
	yips    string // "yips-agent" or "yips-tools"
	closeBy string // vThink at an opener: the tag that closes the block
	back    int    // vBlock, vNeed: markup bytes before the trigger byte
	py      *pyWrapper
}

// recognize decides what starts at b[p] in prose. eof reports whether b
// holds the whole input.
func (s *Stream) recognize(b []byte, p int, eof bool) rec {
	f := s.cfg.formats
	switch b[p] {
	case '<':
		return s.recognizeTag(b, p, eof, false)
	case '[':
		if f&FormatTag != 0 && functoolsAt(b, p) {
			switch j := skipGap(b, p+1); {
			case j == len(b) && !eof:
				return rec{v: vNeed, back: len(functoolsWord)}
			case j < len(b) && b[j] == '{':
				return rec{v: vBlock, end: p, open: &functoolsOpener, format: FormatTag, back: len(functoolsWord)}
			}
		}
		if f&FormatMistral != 0 {
			full, partial := hasPrefixOrPartial(b[p:], mistralTag)
			if full {
				return rec{v: vBlock, end: p + len(mistralTag), format: FormatMistral}
			}
			if partial && !eof {
				return rec{v: vNeed}
			}
			switch r := recognizeStrayClose(b, p, eof); r.v {
			case vNeed, vMarkup:
				return r
			}
		}
		if f&FormatJSON != 0 && p >= s.noCandUntil {
			return rec{v: vCandidate, end: p}
		}
	case '{':
		if f&FormatJSON != 0 && p >= s.noCandUntil {
			return rec{v: vCandidate, end: p}
		}
	case '`':
		if atLineStart(b, p) || afterLabel(b, p) {
			return s.recognizeFence(b, p, eof)
		}
	case '>':
		if f&FormatFunctionary != 0 && atLineStart(b, p) {
			return recognizeFunctionary(b, p, eof)
		}
	}
	return rec{v: vNone}
}

// laterBySecond lists, by their second byte, the '<' tokens that
// recognizeTag tries after the openers of tagOpeners. Each of those
// recognizers answers only when its token matches in full or in part,
// so when none does, they need not run.
var laterBySecond = func() (t [256][]string) {
	toks := []string{harmonyStart, harmonyChannel, functionOpen, functionAttr, pythonTag, eosTag}
	for _, w := range pyWrappers {
		toks = append(toks, w.open)
	}
	for _, tt := range thinkTags {
		toks = append(toks, tt.open, tt.close)
	}
	toks = append(toks, strayCloses[:]...)
	toks = append(toks, turnTokens...)
	for _, tok := range toks {
		if tok[0] == '<' {
			t[tok[1]] = append(t[tok[1]], tok)
		}
	}
	return t
}()

// laterMayMatch reports whether a token of laterBySecond, or thClose,
// matches b[p:] in full or in part (b[p] is '<', b[p+1] exists).
func laterMayMatch(b []byte, p int, thClose string) bool {
	for _, t := range laterBySecond[b[p+1]] {
		if full, partial := hasPrefixOrPartial(b[p:], t); full || partial {
			return true
		}
	}
	if thClose != "" {
		full, partial := hasPrefixOrPartial(b[p:], thClose)
		return full || partial
	}
	return false
}

// recognizeTag matches the '<' openers. inThink limits it to </think>
// and the explicit call openers.
func (s *Stream) recognizeTag(b []byte, p int, eof bool, inThink bool) rec {
	f := s.cfg.formats
	need := false
	if f&FormatTag != 0 && p+1 >= len(b) {
		need = true // "<" alone may start any opener
	} else if f&FormatTag != 0 {
		// Only the openers whose second byte is the one after '<' can
		// match: the others are not even partial matches.
		for _, i := range openersBySecond[b[p+1]] {
			o := &tagOpeners[i]
			full, partial := hasPrefixOrPartial(b[p:], o.tag)
			if partial {
				need = true
				continue
			}
			if !full {
				continue
			}
			end := p + len(o.tag)
			if o.soft {
				if inThink {
					return rec{v: vNone}
				}
				j := skipGap(b, end)
				if j == len(b) {
					if eof {
						return rec{v: vNone}
					}
					return rec{v: vNeed}
				}
				if b[j] != '{' && b[j] != '[' {
					return rec{v: vNone}
				}
			}
			if o.gemma {
				j := skipGap(b, end)
				full, partial := hasPrefixOrPartial(b[j:], gemmaCall)
				if (partial || j == len(b)) && !eof {
					return rec{v: vNeed}
				}
				if !full {
					return rec{v: vNone}
				}
			}
			if o.xml != nil {
				// Markup only when an <invoke …> item follows: the tag
				// named in prose stays prose. A broken item (<invoke
				// nam="x">) still opens the block, so that its siblings
				// run (itemfail.go).
				j, more := o.xml.skipFrame(b, skipGap(b, end), eof)
				full, partial := hasPrefixOrPartial(b[j:], o.xml.fnOpen)
				if !full {
					full, partial = hasPrefixOrPartial(b[j:], o.xml.fnStem()+" ")
				}
				partial = partial || more
				if partial || j == len(b) {
					if !eof {
						return rec{v: vNeed}
					}
					continue
				}
				if !full {
					continue // another reading of the tag may follow (pyWrappers)
				}
			}
			if o.keep {
				end = p
			}
			return rec{v: vBlock, end: end, open: o, format: FormatTag}
		}
	}
	if !inThink && (p+1 == len(b) || b[p+1] == '|') {
		if f&FormatTag != 0 {
			switch r := recognizeGigaChat(b, p, eof); r.v {
			case vNone:
			default:
				return r
			}
		}
		if f&FormatFunctionary != 0 {
			switch r := recognizeFunctionaryV2(b, p, eof); r.v {
			case vNone:
			case vNeed:
				need = true
			default:
				return r
			}
		}
	}
	// Each recognizer below answers only when its token matches: after
	// an opener's "<tool_c" none of them can.
	thClose := ""
	if inThink {
		thClose = s.th.close
	}
	if p+1 < len(b) && !laterMayMatch(b, p, thClose) {
		if need && !eof {
			return rec{v: vNeed}
		}
		return rec{v: vNone}
	}
	if f&FormatTag != 0 && !inThink {
		switch r := recognizeHarmony(b, p, eof); r.v {
		case vNeed:
			need = true
		case vNone:
		default:
			return r
		}
	}
	if f&FormatFunctionTag != 0 {
		if r := recognizeFunctionTag(b, p, eof); r.v != vNone {
			return r
		}
	}
	if f&FormatPythonic != 0 {
		for i := range pyWrappers {
			w := &pyWrappers[i]
			full, partial := hasPrefixOrPartial(b[p:], w.open)
			if full && w.lines {
				// A tag that also names other markup is this wrapper
				// only when a call follows it.
				ok, more := pyCallAt(b, skipGap(b, p+len(w.open)), eof)
				if more {
					need = true
				}
				full = ok
			}
			if full {
				return rec{v: vBlock, end: p + len(w.open), format: FormatPythonic, py: w}
			}
			need = need || partial
		}
	}
	if f&FormatPythonTag != 0 {
		full, partial := hasPrefixOrPartial(b[p:], pythonTag)
		if full {
			return rec{v: vBlock, end: p + len(pythonTag), format: FormatPythonTag}
		}
		need = need || partial
	}
	if inThink {
		full, partial := hasPrefixOrPartial(b[p:], s.th.close)
		if full {
			return rec{v: vThink, end: p + len(s.th.close)}
		}
		need = need || partial
	} else {
		for _, t := range thinkTags {
			full, partial := hasPrefixOrPartial(b[p:], t.open)
			if full {
				return rec{v: vThink, end: p + len(t.open), closeBy: t.close}
			}
			need = need || partial
		}
		switch r := recognizeStrayClose(b, p, eof); r.v { // see stray.go
		case vNeed:
			need = true
		case vMarkup:
			return r
		}
		end, partial := recognizeTurnToken(b, p)
		if end >= 0 {
			switch r := turnTokenInPlace(b, p, end, eof); r.v {
			case vNeed:
				need = true
			case vMarkup:
				return r
			}
		}
		need = need || partial
		switch r := recognizeEOS(b, p, eof); r.v {
		case vNeed:
			need = true
		case vMarkup:
			return r
		}
	}
	if need && !eof {
		return rec{v: vNeed}
	}
	return rec{v: vNone}
}
