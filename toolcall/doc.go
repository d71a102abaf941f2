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
// Feed holds back only a suffix that could still become markup (a partial
// tag, an open call block, JSON that may be a call) and releases it as soon
// as it is decided. Close equals Parse for every split of the text; the
// fuzz target FuzzStream checks that property, and the design makes it
// hold by construction: Parse is one Feed and one Close, and every decision
// of the scanner depends only on bytes already seen. Cost is linear in the
// input: no chunk triggers a rescan of what came before.
//
// # Formats
//
//   - <tool_call>{json}</tool_call> (Hermes, Qwen), and the wrappers small
//     models use instead: <function_call>, and — only when JSON follows —
//     <tool>, <tools>, <response>, <json>. A block may hold one object,
//     several, or an array of calls. A missing close tag is accepted.
//   - <function=NAME>{args}</function>, alone or inside <tool_call>, and
//     Qwen3-Coder's <function=NAME><parameter=KEY>value</parameter>…
//     </function>, whose raw-text values become JSON strings.
//   - Mistral: [TOOL_CALLS][{…}] and [TOOL_CALLS]name[ARGS]{…}
//     (with an optional [CALL_ID]id).
//   - Llama 3.x: <|python_tag|>{"name", "parameters"} (several separated by
//     ";"), and bare {"name", "parameters"} JSON.
//   - Functionary: ">>>name" on its own line followed by a JSON object.
//   - ```json (or plain ```, ```xml) fences around a tag or a call object.
//   - Yips envelopes (```yips-agent and legacy ```yips-tools), with their
//     rules; see envelope.go.
//
// Bare JSON (and JSON alone in a ```json fence) is a call only when it is
// the whole message or ends it — possibly several calls in a row — and has
// a name key plus an arguments key. JSON followed by more prose is an
// example, not a call. JSON inside a fence of another language, and markup
// of any kind inside a ```python or ```markdown fence, is code, never a
// call. With WithTools, names outside the list are never calls.
//
// One alias table covers the names models use: the tool name comes from
// name, tool_name, tool or function (a string); the arguments from
// arguments, args, params, parameters, the OpenAI shape
// {"type":"function","function":{"name","arguments"}}, or the remaining
// top-level keys. Arguments written as a JSON string are decoded once;
// string values inside them stay strings.
//
// # Reasoning
//
// The content of <think>…</think> is returned as Result.Thinking (and
// streamed as EventThinking); it never appears in Result.Text. Nothing in
// a closed think block is a call. If the message ends inside a think block,
// calls written after the reasoning are real calls. Use StartInThinking
// when the chat template opened the block in the prompt.
//
// # Robustness
//
// One JSON-string-aware scanner finds tags, fences and braces only outside
// JSON strings, so a "}" or "</tool_call>" inside an argument never ends a
// call. Output cut off at a value boundary is repaired by closing the open
// containers, and the call is marked Repaired; a cut inside a string, key,
// number or literal gives no call but a Failure saying where. Invalid JSON
// gives no call: its text stays in Result.Text and a Failure reports the
// reason and the raw span. Failures are isolated per block, so one bad
// block never costs the valid calls around it.
package toolcall
