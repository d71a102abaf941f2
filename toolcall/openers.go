package toolcall

// The tags that open call blocks, and FireFunction's word before one.

// opener describes a tag that opens a call block.
type opener struct {
	tag    string
	close  string
	format Format
	soft   bool         // a common word: markup only when JSON follows
	wrap   bool         // may hold <function=NAME> items
	xml    *xmlDialect  // holds quoted XML-like items (<invoke name="NAME">, params.go)
	items  *itemGrammar // items with a name header (tokens.go)
	keep   bool         // the tag is also the first item's begin: do not consume it
	gemma  bool         // holds one Gemma 4 call:NAME{…} (gemma.go)
	keyed  bool         // holds [{"NAME": {arguments}}, …] (apertus.go)
}

// openersBySecond lists, for each byte, the indices of the tagOpeners
// whose tag has it as its second byte, in table order: the byte after a
// '<' rules out every other opener at once.
var openersBySecond = func() (t [256][]uint8) {
	for i, o := range tagOpeners {
		t[o.tag[1]] = append(t[o.tag[1]], uint8(i))
	}
	return t
}()

var tagOpeners = []opener{
	{tag: "<tool_call>", close: "</tool_call>", format: FormatTag, wrap: true},
	{tag: "<function_call>", close: "</function_call>", format: FormatTag, wrap: true},
	// Hermes' tag under other names: LongCat-Flash (vLLM
	// longcat_tool_parser) and Seed-OSS, whose block holds Qwen3-Coder's
	// <function=NAME><parameter=…> items (vLLM seed_oss_tool_parser).
	{tag: "<longcat_tool_call>", close: "</longcat_tool_call>", format: FormatTag, wrap: true},
	{tag: "<seed:tool_call>", close: "</seed:tool_call>", format: FormatTag, wrap: true},
	// MiniMax-M2's <invoke name="NAME"><parameter name="KEY">… items.
	{tag: "<minimax:tool_call>", close: "</minimax:tool_call>", format: FormatTag, xml: minimaxXML},
	// The same items in <function_calls>: the text tool format of
	// Anthropic's prompt-based tool use, written by models distilled from
	// its transcripts.
	{tag: "<function_calls>", close: "</function_calls>", format: FormatTag, xml: minimaxXML},
	// DeepSeek V3.2 and V4 DSML: <｜DSML｜invoke name="NAME"> items with
	// typed parameters (vLLM deepseekv32 and DeepSeek V4 parsers).
	{tag: "<｜DSML｜function_calls>", close: "</｜DSML｜function_calls>", format: FormatTag, xml: dsmlXML},
	{tag: "<｜DSML｜tool_calls>", close: "</｜DSML｜tool_calls>", format: FormatTag, xml: dsmlXML},
	// Step3's <steptml:invoke name="NAME"> items in framed sections.
	{tag: "<｜tool_calls_begin｜>", close: "<｜tool_calls_end｜>", format: FormatTag, xml: step3XML},
	// Special tokens of other families, rendered as text when the
	// runtime does not parse them: Granite 3.x and Phi-4-mini
	// (<|tool_call|>[…], Phi closes it with <|/tool_call|>), Command R7B
	// (<|START_ACTION|>[{"tool_name", "parameters"}]<|END_ACTION|>) and
	// InternLM2 (<|action_start|><|plugin|>{…}<|action_end|>).
	{tag: "<|tool_call|>", close: "<|/tool_call|>", format: FormatTag},
	{tag: "<|START_ACTION|>", close: "<|END_ACTION|>", format: FormatTag},
	// GigaChat 3.1: <|function_call|>{"name", "arguments"}, no close
	// token (llama.cpp's GigaChat3.1 template, vLLM gigachat3 parser).
	{tag: "<|function_call|>", format: FormatTag, soft: true},
	{tag: "<|action_start|><|plugin|>", close: "<|action_end|>", format: FormatTag},
	{tag: "<｜tool▁calls▁begin｜>", close: "<｜tool▁calls▁end｜>", format: FormatTag, items: deepseekItems},
	{tag: "<|tool_calls_section_begin|>", close: "<|tool_calls_section_end|>", format: FormatTag, items: kimiItems},
	// The singular spelling some Kimi-K2 checkpoints write (llama.cpp PR
	// 17376 review, vLLM kimi_k2 tests).
	{tag: "<|tool_call_section_begin|>", close: "<|tool_call_section_end|>", format: FormatTag, items: kimiItems},
	// Models also drop the section token and start with the first item.
	{tag: "<｜tool▁call▁begin｜>", close: "<｜tool▁calls▁end｜>", format: FormatTag, items: deepseekItems, keep: true},
	{tag: "<|tool_call_begin|>", close: "<|tool_calls_section_end|>", format: FormatTag, items: kimiItems, keep: true},
	// Apertus: <|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>.
	{tag: apertusOpen, close: "<|tools_suffix|>", format: FormatTag, keyed: true},
	// Gemma 4: <|tool_call>call:NAME{…}<tool_call|>.
	{tag: gemmaOpen, close: gemmaClose, format: FormatTag, gemma: true},
	// Jamba: <tool_calls>[…]</tool_calls>.
	{tag: "<tool_calls>", close: "</tool_calls>", format: FormatTag, soft: true},
	// Llama-Nemotron: <TOOLCALL>[…]</TOOLCALL> (vLLM llama_nemotron_json).
	{tag: "<TOOLCALL>", close: "</TOOLCALL>", format: FormatTag, soft: true},
	{tag: "<tools>", close: "</tools>", format: FormatTag, soft: true},
	{tag: "<tool>", close: "</tool>", format: FormatTag, soft: true},
	{tag: "<response>", close: "</response>", format: FormatTag, soft: true},
	{tag: "<json>", close: "</json>", format: FormatTag, soft: true},
	// Seen in llama.cpp's Hermes 2 Pro tests: <xml>, and upper case.
	{tag: "<xml>", close: "</xml>", format: FormatTag, soft: true},
	{tag: "<JSON>", close: "</JSON>", format: FormatTag, soft: true},
	{tag: "<XML>", close: "</XML>", format: FormatTag, soft: true},
	// Qwen2.5-Coder wraps a JSON call in <function> without =NAME.
	{tag: "<function>", close: "</function>", format: FormatTag, soft: true},
}

// functoolsOpener is FireFunction v2's " functools[{…}, …]": the word
// comes before the '[' that triggers recognition (see functoolsAt).
var functoolsOpener = opener{tag: functoolsWord, format: FormatTag}

const functoolsWord = "functools"

// functoolsAt reports whether the '[' at p follows the word functools,
// itself at the start of the text or after blank space.
func functoolsAt(b []byte, p int) bool {
	q := p - len(functoolsWord)
	return q >= 0 && string(b[q:p]) == functoolsWord && (q == 0 || isSpace(b[q-1]))
}
