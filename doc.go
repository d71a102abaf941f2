// Package tether is an embeddable Go SDK for tool-calling agents, coding
// agents first.
//
// A host program imports Tether, plugs in a model backend, a user interface
// and a store, and gets a complete, safe agent loop: stream the model, find
// its tool calls (native, or written in text by a small local model), judge
// each action, ask a human where needed, snapshot files before touching
// them, run the tools, feed the results back, and report every step as one
// ordered stream of events.
//
// The work is split into packages that import downwards only:
//
//   - [github.com/tetherdev/tether/llm]: provider-neutral messages and the
//     Model interface, with backends in llm/ollama and llm/openai, model
//     strings ("ollama:qwen3:8b", "script:FILE") in llm/modelstr, scripted
//     sessions in llm/scripted and test doubles in llm/llmtest.
//   - [github.com/tetherdev/tether/toolcall]: tool calls written in model
//     text, parsed one-shot or while they stream.
//   - [github.com/tetherdev/tether/safety]: command analysis from a real shell
//     parser, allow/ask/deny rules, file sensitivity and workspace
//     confinement.
//   - [github.com/tetherdev/tether/approval] and
//     [github.com/tetherdev/tether/checkpoint]: humans in the loop, and undo.
//   - [github.com/tetherdev/tether/tools]: typed tools with inferred JSON
//     Schema, a registry and the built-in file, search and terminal tools.
//   - [github.com/tetherdev/tether/agent]: the executor loop that composes
//     all of the above.
//
// # Quick start
//
// Parse a tool call that a small model wrote in its reply:
//
//	res := toolcall.Parse(`Reading it now. <tool_call>{"name":"read_file","arguments":{"path":"main.go"}}</tool_call>`)
//	for _, c := range res.Calls {
//		fmt.Println(c.Name, string(c.Arguments)) // read_file {"path":"main.go"}
//	}
//
// Judge a shell command before running it:
//
//	a := safety.AnalyzeCommand("ls && rm -rf ~")
//	fmt.Println(a.Severity) // critical
//
// Talk to a local model:
//
//	m, err := modelstr.Open("ollama:qwen3:8b")
//	for chunk, err := range m.Chat(ctx, llm.Request{Messages: msgs}) { … }
//
// The runnable programs under examples/ show each piece end to end.
package tether
