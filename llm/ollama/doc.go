// Package ollama is a [llm.Model] backed by Ollama's native /api/chat,
// with streaming, thinking and native tool calls, built on the official
// client in github.com/ollama/ollama/api.
//
//	m, err := ollama.New(ollama.Config{Model: "qwen3:8b"}) // local server, DefaultHost
//	caps, err := m.Capabilities(ctx)                     // from /api/show
//	req := llm.Request{Messages: history}
//	if caps.Tools {
//		req.Tools = specs // otherwise describe tools in the prompt
//	}
//	resp, err := llm.Collect(m.Chat(ctx, req))
//	history = append(history, resp.Message)
//
// Capabilities come from /api/show: its "capabilities" list ("tools",
// "thinking", "vision") and the model's trained context length.
//
// Every chat request asks for a context window (num_ctx): Config.NumCtx,
// else OLLAMA_CONTEXT_LENGTH (Config.EnvContextLength), else
// [DefaultNumCtx], lowered to the model's trained maximum. Without it
// Ollama would run the model with its own default (4096 tokens on most
// machines) and silently drop the start of a longer prompt.
// Capabilities.ContextLength reports the window asked for: budget
// prompts against it. A model without
// "tools" reports Tools=false, and a request with tools that the server
// refuses ("does not support tools") fails with [llm.ErrNoToolSupport], so
// an agent can fall back to tool calls written in text instead of failing.
// [Model.List] lists installed models (/api/tags).
//
// Requests keep what Ollama's chat templates rely on: assistant messages
// carry their thinking and tool calls, tool results their tool_name.
// Tool calls arrive whole, numbered in arrival order, never de-duplicated.
//
// # Resilience
//
// Connection errors, 429 and 5xx answers are retried per Config.Retry
// before the first response byte; a stream that goes silent for
// Config.StallTimeout ends with [llm.ErrStalled]; a stream cut short ends
// with [llm.ErrIncomplete]; a response over Config.Limits (content,
// thinking, arguments, one line, total time) ends with a
// [*llm.LimitError]. The Ollama client library hides some of these
// (it treats a reset connection as a clean end of stream and ignores an
// error status with an empty body), so the package watches the HTTP
// exchange itself and reports what really happened.
package ollama
