package toolcall

import "bytes"

// OpenAI's harmony format (gpt-oss), when the runtime leaves its tokens in
// the text (vLLM tests/tool_use/test_openai_tool_parser.py, llama.cpp
// tests/test-chat.cpp, Ollama's harmony parser):
//
//	<|channel|>analysis<|message|>Need the weather.<|end|>
//	<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location":"SF"}<|call|>
//	<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>
//
// A message header runs from <|start|> or <|channel|> to <|message|>. A
// header with a recipient (to=functions.NAME, or to=NAME) opens a call
// whose JSON ends at <|call|>; the analysis channel is reasoning, up to
// <|end|>; any other header (final, commentary without a recipient) is
// markup before prose.

const (
	harmonyStart   = "<|start|>"
	harmonyChannel = "<|channel|>"
	harmonyMessage = "<|message|>"
	maxHarmonyHead = 512
)

var harmonyCall = opener{tag: harmonyChannel, close: "<|call|>", format: FormatTag}

// recognizeHarmony reads a message header at b[p]. A header starts the
// message or a line, or follows another token (…<|end|><|start|>); after
// a space it is a mention in prose.
func recognizeHarmony(b []byte, p int, eof bool) rec {
	if !atLineStart(b, p) && b[p-1] != '>' {
		return rec{v: vNone}
	}
	need := false
	for _, t := range [...]string{harmonyStart, harmonyChannel} {
		full, partial := hasPrefixOrPartial(b[p:], t)
		if partial {
			need = true
		}
		if !full {
			continue
		}
		win := b[p:min(len(b), p+maxHarmonyHead)]
		m := bytes.Index(win, []byte(harmonyMessage))
		if m < 0 {
			if !eof && len(win) < maxHarmonyHead {
				return rec{v: vNeed}
			}
			return rec{v: vNone}
		}
		head := win[:m]
		end := p + m + len(harmonyMessage)
		if name := harmonyRecipient(head); name != "" {
			return rec{v: vBlock, end: end, open: &harmonyCall, format: FormatTag, name: name}
		}
		if c := bytes.Index(head, []byte(harmonyChannel)); c >= 0 {
			ch := bytes.TrimSpace(head[c+len(harmonyChannel):])
			if bytes.HasPrefix(ch, []byte("analysis")) {
				return rec{v: vThink, end: end, closeBy: "<|end|>"}
			}
		}
		return rec{v: vMarkup, end: end}
	}
	if need && !eof {
		return rec{v: vNeed}
	}
	return rec{v: vNone}
}

// harmonyRecipient returns the tool named by to= in a header, without
// the functions. namespace, or "".
func harmonyRecipient(head []byte) string {
	i := bytes.Index(head, []byte("to="))
	if i < 0 || i > 0 && !isSpace(head[i-1]) && head[i-1] != '|' && head[i-1] != '>' {
		return ""
	}
	j := i + 3
	e := j
	for e < len(head) && isNameByte(head[e]) && head[e] != '<' {
		e++
	}
	name := string(head[j:e])
	if len(name) > len("functions.") && name[:len("functions.")] == "functions." {
		name = name[len("functions."):]
	}
	if name == "" || len(name) > maxNameLen {
		return ""
	}
	return name
}
