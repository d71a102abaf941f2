package toolcall

// Functionary v2 (MeetKai's v2 chat template) writes each part of a reply
// as a message with a header of special tokens:
//
//	<|from|>assistant
//	<|recipient|>all
//	<|content|>Let me check.
//	<|from|>assistant
//	<|recipient|>get_weather
//	<|content|>{"city": "Hanoi"}<|stop|>
//
// The recipient "all" means the content is text for the user: its header
// is dropped as markup. Any other recipient names a tool, and the content
// is its JSON arguments, read like the content after >>>NAME. The
// template's generation prompt ends with "<|from|>assistant\n<|recipient|>",
// so a reply starts with the recipient's name: "get_weather\n<|content|>{…}"
// or "all\n<|content|>…" at the start of a message is read the same way.
// A header whose content is not a JSON object stays text.

const (
	fv2From      = "<|from|>"
	fv2Assistant = "assistant\n"
	fv2Recipient = "<|recipient|>"
	fv2Content   = "<|content|>"
	fv2Stop      = "<|stop|>"
)

// recognizeFunctionaryV2 matches a full header at the '<' at b[p].
func recognizeFunctionaryV2(b []byte, p int, eof bool) rec {
	i := p
	for _, lit := range [...]string{fv2From, fv2Assistant, fv2Recipient} {
		if ok, r := literalAt(b[i:], lit, eof); !ok {
			return r
		}
		i += len(lit)
	}
	return functionaryV2Body(b, i, eof)
}

// functionaryV2Body reads "NAME\n<|content|>" at b[p] and what follows
// it: the markup of a text message (NAME is all) or the start of a call's
// JSON arguments.
func functionaryV2Body(b []byte, p int, eof bool) rec {
	name, nl, ok, r := nameLine(b, p, eof)
	if !ok {
		return r
	}
	i := nl + 1
	if ok, r := literalAt(b[i:], fv2Content, eof); !ok {
		return r
	}
	end := i + len(fv2Content)
	if name == "all" {
		return rec{v: vMarkup, end: end}
	}
	j := skipGap(b, end)
	switch {
	case j == len(b) && !eof && j-end < maxBlankGap:
		return rec{v: vNeed}
	case j < len(b) && b[j] == '{' && validName(name):
		return rec{v: vBlock, end: j, format: FormatFunctionary, name: name}
	}
	return rec{v: vNone}
}
