// Package toolcall finds tool calls that a model wrote in its text, in
// one shot with Parse or while the text streams with Stream.
//
// Models without native tool calling write their calls as text, each
// family its own way and often imperfectly. toolcall finds every real
// call, never invents one, never loses prose, and works while the text is
// still arriving.
//
// # One shot
//
//	r := toolcall.Parse(reply)
//	for _, c := range r.Calls {
//		run(c.Name, c.Arguments) // Arguments is always a JSON object
//	}
//	show(r.Text)                  // the prose, call markup removed
//	for _, f := range r.Failures {
//		tell(f.Reason)            // what the model should fix
//	}
//
// # Streaming
//
//	s := toolcall.NewStream(toolcall.WithTools("read_file", "write_file"))
//	for chunk := range modelChunks {
//		for _, e := range s.Feed(chunk) {
//			switch e.Kind {
//			case toolcall.EventText:     ui.Append(e.Text) // never markup, never taken back
//			case toolcall.EventCallPath: ui.Status("Writing " + e.Path + "…")
//			case toolcall.EventCall:     queue(*e.Call)
//			}
//		}
//	}
//	events := s.Flush() // calls only the end of the text can confirm
//	result := s.Close() // == Parse(all chunks joined), however they were split
//
// Feed holds back only a suffix that could still become markup (a partial tag,
// an open call block, JSON that may be a call) and releases it as soon as it is
// decided. Close equals Parse for every split of the text; a fuzz test checks
// that property, and the design makes it hold by construction: Parse is one Feed
// and one Close, and every decision of the scanner depends only on bytes already
// seen. Cost is linear in the input: no chunk triggers a rescan of what came
// before.
//
// # Formats
//
//   - <tool_call>{json}</tool_call> (Hermes, Qwen), also spelled
//     <longcat_tool_call> (LongCat-Flash) and <seed:tool_call> (Seed-OSS,
//     around Qwen3-Coder items), and the wrappers small
//     models use instead: <function_call>, and — only when JSON follows —
//     <tool>, <tools>, <response>, <json>, <xml>, <JSON>, <XML> and
//     <function> without =NAME (Qwen2.5-Coder). FireFunction v2's
//     " functools[…]" opens an array of calls. A block may hold one
//     object, several, or an array of calls. A missing close tag is
//     accepted.
//   - <function=NAME>{args}</function>, alone or inside <tool_call>, and
//     Qwen3-Coder's <function=NAME><parameter=KEY>value</parameter>…
//     </function>, whose raw-text values become JSON strings (a value
//     whose </parameter> is missing ends at the next <parameter= line or
//     at a </function> that ends the item, a garbled close tag is
//     dropped, and the call is marked Repaired; an item whose
//     </function> is missing ends at the wrapper's close tag, also
//     Repaired); also <function name="NAME">, whose parameters may be
//     spelled <parameter name="KEY"> or, as MiniCPM5 writes them,
//     <param name="KEY">…</param>. GLM-4.5's <tool_call>NAME
//     <arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call> (values
//     that are JSON other than strings stay JSON). MiniMax-M2's
//     <minimax:tool_call><invoke name="NAME"><parameter name="KEY">value
//     </parameter></invoke>… (also in <function_calls>, Anthropic's
//     prompt-based tool format, which distilled models write) and
//     Step3's <steptml:invoke> items in
//     <｜tool_calls_begin｜> sections read the same way; each wrapper is
//     markup only when an item follows it. DeepSeek V3.2 and V4 DSML,
//     <｜DSML｜function_calls> or <｜DSML｜tool_calls> around
//     <｜DSML｜invoke name="NAME"> items, whose parameters carry
//     string="true" (text) or string="false" (JSON). GLM-4.7 writes a call
//     without arguments as the bare name: <tool_call>get_time</tool_call>.
//   - Gemma 4: <|tool_call>call:NAME{key:<|"|>text<|"|>,n:5}<tool_call|>,
//     one wrapper per call; the arguments (bare keys, <|"|> strings,
//     JSON numbers, booleans, lists and objects) are converted to JSON.
//   - Apertus: <|tools_prefix|>[{"NAME": {arguments}}, …]<|tools_suffix|>,
//     with reasoning in <|inner_prefix|>…<|inner_suffix|>.
//   - Mistral: [TOOL_CALLS][{…}] (a few bytes of junk before the array
//     are skipped), [TOOL_CALLS]name[ARGS]{…} (with an optional
//     [CALL_ID]id) and tokenizer v11's [TOOL_CALLS]name{…}, one marker per
//     call or several calls joined by commas (name{…},name{…}); a closing
//     [/TOOL_CALLS] is markup, also after prose that ends a sentence or
//     its line ("Done.[/TOOL_CALLS]").
//   - Llama 3.x: <|python_tag|>{"name", "parameters"} (several separated by
//     ";"), and bare {"name", "parameters"} JSON. After <|python_tag|>,
//     the built-in tools' name.call(key="value") is a call too, and plain
//     code is a call of the code tool ("python", "code_interpreter" or
//     "ipython") when WithTools lists one and the tag starts a line.
//   - Pythonic lists [get_weather(city='Paris'), …] (Llama 3.2/3.3/4 with
//     vLLM's pythonic template), with keyword arguments that are Python
//     literals: only with WithTools naming every function, starting a
//     line, and ending the message like bare JSON. Llama 4 wraps the list
//     in <|python_start|>…<|python_end|>, LFM2 in
//     <|tool_call_start|>…<|tool_call_end|>; the wrapped list needs no
//     allow-list. Olmo 3 writes the calls one per line in
//     <function_calls>…</function_calls> (the tag is Olmo's only when a
//     call, NAME(, follows it). Gemma 3's ```tool_code fence of Python
//     calls, one per line and optionally wrapped in print(…), is a fenced
//     call (see below) when WithTools names every function in it.
//   - Functionary: ">>>name" on its own line followed by a JSON object;
//     ">>>all" (plain text follows) is dropped as markup. v3.2's template
//     ends the prompt with ">>>", so with WithTools a message starting
//     "name\n{…}" for a listed name is a call and a leading "all\n" is
//     dropped. Functionary v2 heads each part of a reply with
//     <|from|>assistant, <|recipient|>NAME and <|content|>, one line
//     each: recipient all is text (the header is dropped), any other is a
//     call whose content is a JSON object; several parts may follow one
//     another, a closing <|stop|> is markup, and since the template's
//     prompt ends with the recipient token, a message starting
//     "NAME\n<|content|>" is read the same way.
//   - ```json (or plain ```, ```xml) fences around a tag or a call object,
//     also opened after a one-word label on its line, as Command-R writes
//     "Action: ```json" around its [{"tool_name", "parameters"}] list.
//   - Special-token wrappers of other families: <|tool_call|>[…] (Granite,
//     Phi-4-mini, optionally closed by <|/tool_call|>), Command R7B
//     <|START_ACTION|>[{"tool_name", "parameters"}]<|END_ACTION|>,
//     GigaChat 3.1 <|function_call|>{…} (markup only when JSON follows),
//     GigaChat 3's "function call<|role_sep|>" role header before {…}
//     (only at the start of a line or after a token, and only when JSON
//     follows; a <|message_sep|> before it is dropped with the blank
//     space after it, and prose is held back while it could still
//     become the header),
//     InternLM2 <|action_start|><|plugin|>{…}<|action_end|>, and Jamba
//     <tool_calls>[…]</tool_calls> (only when JSON follows).
//   - gpt-oss harmony messages with their tokens: a header with
//     to=functions.NAME opens a call whose JSON ends at <|call|>; the
//     analysis channel is reasoning; other headers are dropped as markup.
//   - Sections whose items name the tool in a header:
//     DeepSeek-R1 and V3.1 <｜tool▁calls▁begin｜>…<｜tool▁sep｜>NAME …,
//     and Kimi K2 <|tool_calls_section_begin|> (or the singular
//     <|tool_call_section_begin|>) with functions.NAME:IDX items (the
//     header is kept as Call.ID); also when the model leaves out the
//     section token. Kimi ids of other shapes name the tool too: NAME:IDX,
//     functions.NAME, ids a client sanitised and fed back
//     (functions_NAME_IDX; functionsNAMEIDX with WithTools), and
//     OpenAI-style ids (call_abc123, call00003, a counter) whose
//     arguments carry the name ({"name": …, …}).
//   - Yips envelopes (```yips-agent and legacy ```yips-tools): one fenced
//     JSON object per message whose actions are the calls, also in the bent
//     shapes small models write (renamed fields, flattened arguments, a lost
//     fence label or fence); ids must be unique, malformed actions are
//     dropped with a Warning, and a second envelope in one message is a
//     Failure (ErrMultipleEnvelopes).
//
// Bare JSON (and JSON alone in a ```json fence) is a call only when it is
// the whole message or ends it — possibly several calls in a row — and has
// a name key plus an arguments key. JSON followed by more prose is an
// example, not a call, with one exception: Llama 3.x's own shape
// {"name": …, "parameters": {…}}, one call or several joined by ";", is a
// call with prose before and after it when it starts a line or follows a
// colon ("Here is the result: {…} Would you like more?") and names a
// function (letters, digits, '_', '.'), as those models write it;
// mid-sentence ("a call such as {…} returns…") it stays an example. A
// tool definition ({"name", "description", "parameters"}, or arguments
// that are a JSON Schema) is never a call.
//
// A call in a fence (```json, ```xml, ```tool_code, a bare ```) is a call
// when the fence ends the message or when prose that does not explain it
// follows ("I'll wait for the result."); a fence introduced as an example
// ("For example:", "The format is:"), followed by an explanation ("This
// reads the file…", "Replace the path…") or after such an example is
// documentation and stays text. Bare JSON that ends the
// message but that its paragraph introduces as an example ("Here is an
// example: {…}") stays text too, as does a tag block that its own line
// introduces as one ("for example <tool_call>…"). A call of any of these
// forms whose introducing line hedges or refuses it — a modal or a
// negation right before a calling verb in its last clause, which ends
// with a colon ("I would call:", "Normally I'd run:", "I won't run this
// one:") — is text too, and does not make later fences examples;
// an earlier clause ("Since I can't run code myself, I'll use the
// sandbox:") gives a reason and does not count. A complete call block is a call
// unless something marks it as shown rather than made: an inline code
// span, a blockquote line or a table row, quotation marks, an example cue
// in its sentence ("for example <tool_call>…"), a sentence that runs on
// across it (the text before ends with a word or a comma and the text
// after continues it: "Wrap calls like <tool_call>…</tool_call> in your
// reply."), or a placeholder tool name ("tool_name"). Line position alone
// is no such mark: "I'll read it. <tool_call>…</tool_call> Then I'll fix
// it." is a call, as every peer parser takes it. A block shown rather than
// made stays text and is reported as a Failure wrapping ErrMention, so an
// agent can tell the model it was not run. While streaming, a call is
// confirmed when the bytes after it show that no sentence runs on
// across it, or at Flush. JSON inside a fence of
// another language, and markup of any kind inside a ```python or
// ```markdown fence, is code, never a call. With WithTools, names outside
// the list are never calls.
//
// One alias table covers the names models use: the tool name comes from
// name, tool_name, tool or function (a string); the arguments from
// arguments, args, params, parameters, the OpenAI shape
// {"type":"function","function":{"name","arguments"}}, or the remaining
// top-level keys. llama.cpp's generic envelopes {"tool_call": {…}} and
// {"tool_calls": [{…}, …]} hold calls in that shape, and its
// {"response": "…"}, as the whole message, is that text. Arguments
// written as a JSON string are decoded once; string values inside them
// stay strings.
//
// # Reasoning
//
// The content of <think>…</think> is returned as Result.Thinking (and
// streamed as EventThinking); it never appears in Result.Text. Nothing in
// a closed think block is a call. If the message ends inside a think block,
// calls written after the reasoning are real calls. Use StartInThinking
// when the chat template opened the block in the prompt. Command R7B's
// <|START_THINKING|>…<|END_THINKING|>, Seed-OSS's
// <seed:think>…</seed:think> and Apertus' <|inner_prefix|>…<|inner_suffix|>
// are reasoning too.
//
// Without StartInThinking, a </think> outside any think block (QwQ and
// Qwen3 templates open <think> in the prompt) is dropped from Text where
// it can only be markup: at the start of a line, after a sentence's end
// or markup, or ending its line; after a word and before more words
// ("ends with </think> and then") it is a mention and stays. The
// reasoning before it stays in Text: a stream
// has already shown it and never takes text back. A call written before
// such an orphan </think> was drafted in reasoning and is not run: until
// the first reasoning tag of a message, a stream holds its calls and
// reports them at an opening <think> or at Flush, and the orphan close
// turns them into markup. End-of-turn tokens
// rendered as text (<|eot_id|>, <|eom_id|>, <|im_end|>, <|end|>,
// Command R7B's <|START_RESPONSE|>…, and </s>) are dropped the same way,
// as SegmentMarkup, where they can only be markup: at the start or the end
// of the message, or glued to markup before them; mentioned inside prose
// they stay. Bare JSON followed only by such tokens still ends the
// message, and bare call JSON followed by a </tool_call> whose opening
// tag the model forgot is a call. So is a <function=…> block followed by
// such an orphan </tool_call>, which is absorbed.
//
// # Robustness
//
// One JSON-string-aware scanner finds tags, fences and braces only outside
// JSON strings, so a "}" or "</tool_call>" inside an argument never ends a
// call. Output cut off at a value boundary is repaired by closing the open
// containers, and the call is marked Repaired; a cut inside a string, key,
// number or literal gives no call but a Failure saying where, and so does
// a cut right after the tool name ({"name": "x"), because running a call
// without the arguments the model meant to write would invent it (while
// streaming, such a call shows only as EventCallName). Slips with one
// possible meaning are repaired too, and the call marked Repaired: a comma
// before a closing bracket, and Python's True, False and None; inside a
// call tag, a whole call written as a Python dict ({'name': …}) is
// converted too. A list of
// calls cut inside one keeps the complete calls before it (marked
// Repaired) and reports the cut one as a Failure.
// Invalid JSON gives no
// call: its text stays in Result.Text and a Failure reports the reason
// and the raw span. Failures are isolated per block, so one bad
// block never costs the valid calls around it, and per item where items
// have their own delimiters (Kimi and DeepSeek items, <invoke> items of
// MiniMax, <function_calls> and DSML blocks): a broken item is reported
// and kept as text, and its siblings run.
//
// # Names and cost
//
// One name rule holds for every family: a tool name is Unicode letters,
// marks and digits plus '_', '-', '.' and ':' (at most 128 bytes); a call
// naming anything else is a Failure that says so. Cost is linear in the
// input whatever it holds: every look-back and look-ahead is bounded (the
// sentence around a block, 256 bytes; blank space between markup, 256
// bytes, beyond which the markup ends), cues are matched in place, and a
// wait never rescans on the next chunk more than such a bound.
//
// # Formats not read
//
// Some formats models ship are declined, each for a reason:
//   - MiniMax-M3's namespaced XML (every tag prefixed with ]<]minimax[>[,
//     arguments as nested <key>value</key> elements): its template writes
//     numbers, booleans and strings alike as raw text, so a value's type
//     needs the tool's schema, which this package does not have; the only
//     descriptions are peers' parser pull requests, not a specification.
//   - Kimi-K3: no chat template or reference parser is public; its
//     checkpoints that write the K2 sections are read as K2.
//   - Granite's Python-call lines: no published template or peer parser
//     describes them; Granite's <|tool_call|>[…] JSON is read.
//   - GLM-4-0414's markerless "NAME\n{…}" is read only as Functionary's
//     message-start form with WithTools naming the tool; anywhere else a
//     word followed by JSON is prose.
package toolcall
