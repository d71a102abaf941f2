package toolcall

import (
	"bytes"
	"strings"
)

// Special-token call sections whose items carry the tool name in a
// header rather than in the JSON:
//
// DeepSeek-R1 (llama.cpp tests/test-chat.cpp, the model's chat template):
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//	```json
//	{…}
//	```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// DeepSeek-V3.1 drops the type and the fence:
// <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>.
//
// Kimi K2 (vLLM kimi_k2_tool_parser, llama.cpp test-chat.cpp):
//
//	<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>
//
// A section is a tag block (its opener and close in tagOpeners); its
// items are parsed here: the header gives the name, the JSON that follows
// is the arguments object, and the item's end token (after an optional
// closing fence) is absorbed as markup.

type itemGrammar struct {
	begin, sep, end string
	kimi            bool // header is functions.NAME:IDX, kept as the call ID
}

var (
	deepseekItems = &itemGrammar{begin: "<｜tool▁call▁begin｜>", sep: "<｜tool▁sep｜>", end: "<｜tool▁call▁end｜>"}
	kimiItems     = &itemGrammar{begin: "<|tool_call_begin|>", sep: "<|tool_call_argument_begin|>", end: "<|tool_call_end|>", kimi: true}
)

// maxHeader bounds the bytes between an item's begin and its JSON.
const maxHeader = 2 * maxNameLen

type itemHeader struct {
	name, id string
	valueAt  int  // offset of the arguments' first byte
	fenced   bool // the arguments sit in a ```json fence
	anon     bool // the id names no tool: the arguments' "name" does
}

// openAIStyleID reports a call id that names no tool: a counter, or
// "call" and a counter or a random suffix (call00003, call_abc123).
func openAIStyleID(id string) bool {
	if isDigits(id) {
		return true
	}
	rest, ok := strings.CutPrefix(id, "call")
	if !ok || rest == "" {
		return false
	}
	if rest[0] == '_' || rest[0] == '-' {
		rest = rest[1:]
	} else if rest[0] < '0' || rest[0] > '9' {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return rest != "" && strings.ContainsAny(rest, "0123456789")
}

// kimiName reads the tool name from a Kimi item id. The template writes
// functions.NAME:IDX, but models also write NAME:IDX (vLLM #27565),
// functions.NAME, ids a client sanitised and fed back (functions_NAME_IDX,
// exo #2281; functionsNAMEIDX, SGLang #21377) and OpenAI-style ids with
// the name inside the arguments (call_abc123, call00003, a bare counter;
// vLLM #32146, SGLang #25362), reported as anon. A shape only an
// allow-list can cut (functionsexec5) is read only with one.
func kimiName(id string, allow map[string]bool) (name string, anon bool) {
	ok := func(n string) bool { return validName(n) && (allow == nil || allow[n]) }
	if openAIStyleID(id) && !allow[id] {
		return "", true
	}
	n, sanitised := id, false
	switch {
	case strings.HasPrefix(n, "functions."):
		n = n[len("functions."):]
	case strings.HasPrefix(n, "functions_"):
		n, sanitised = n[len("functions_"):], true
	}
	if c := strings.LastIndexByte(n, ':'); c > 0 && isDigits(n[c+1:]) {
		n = n[:c]
	} else if c := strings.LastIndexByte(n, '_'); sanitised && c > 0 && isDigits(n[c+1:]) {
		n = n[:c]
	}
	if ok(n) {
		return n, false
	}
	if allow != nil && strings.HasPrefix(id, "functions") {
		t := strings.TrimRight(strings.TrimLeft(id[len("functions"):], "._"), "0123456789")
		if t = strings.TrimRight(t, ":_"); ok(t) {
			return t, false
		}
	}
	return n, false
}

// parseItemHeader reads an item header at b[i]. It returns need when
// more bytes could decide, ok=false when b[i] does not start a valid
// header.
func parseItemHeader(g *itemGrammar, b []byte, i int, eof bool, allow map[string]bool) (h itemHeader, ok, need bool) {
	full, partial := hasPrefixOrPartial(b[i:], g.begin)
	if !full {
		return h, false, partial && !eof
	}
	p := i + len(g.begin)
	win := b[p:min(len(b), p+maxHeader)]
	k := bytes.Index(win, []byte(g.sep))
	if k < 0 {
		return h, false, !eof && len(win) < maxHeader
	}
	head := string(bytes.TrimSpace(win[:k]))
	j := p + k + len(g.sep)
	name := head
	switch {
	case g.kimi:
		h.id = head
		name, h.anon = kimiName(head, allow)
	case head == "function":
		// DeepSeek-R1: the name follows the separator on its own line.
		e := j
		for e < len(b) && e-j < maxNameLen && b[e] != '\n' && b[e] != '`' && b[e] != '{' {
			e++
		}
		if e == len(b) || e-j >= maxNameLen {
			return h, false, !eof && e == len(b)
		}
		name = string(bytes.TrimSpace(b[j:e]))
		j = e
	}
	if !h.anon && (name == "" || !validName(name)) {
		return h, false, false
	}
	h.name = name
	j = skipGap(b, j)
	if full, partial := hasPrefixOrPartial(b[j:], fenceMark); partial {
		return h, false, !eof
	} else if full {
		nl := bytes.IndexByte(b[j:min(len(b), j+maxFenceInfo)], '\n')
		if nl < 0 {
			return h, false, !eof && len(b)-j < maxFenceInfo
		}
		h.fenced = true
		j = skipGap(b, j+nl+1)
	}
	if j == len(b) {
		return h, false, !eof
	}
	if b[j] != '{' {
		return h, false, false
	}
	h.valueAt = j
	return h, true, false
}

// itemTail absorbs what ends an item at b[i]: an optional closing fence,
// then the grammar's end token. It returns the offset past it, or
// ok=false when neither follows.
func itemTail(g *itemGrammar, fenced bool, b []byte, i int, eof bool) (end int, ok, need bool) {
	j := i
	if fenced {
		full, partial := hasPrefixOrPartial(b[j:], fenceMark)
		if partial {
			return 0, false, !eof
		}
		if full {
			j = skipGap(b, j+len(fenceMark))
		}
	}
	full, partial := hasPrefixOrPartial(b[j:], g.end)
	if full {
		return j + len(g.end), true, false
	}
	return 0, false, partial && !eof
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
