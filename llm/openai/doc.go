// Package openai is a [llm.Model] for any OpenAI-compatible
// /v1/chat/completions server: vLLM, llama.cpp server, LM Studio,
// OpenRouter, Ollama's /v1 and OpenAI itself. It streams over SSE with the
// official github.com/openai/openai-go client.
//
//	m, err := openai.New(openai.Config{
//		BaseURL: "http://localhost:8000/v1", // vLLM
//		Model:   "Qwen/Qwen3-8B",
//	})
//	resp, err := llm.Collect(m.Chat(ctx, llm.Request{Messages: history, Tools: specs}))
//
// Reasoning text, which servers send as "reasoning_content" (vLLM,
// llama.cpp) or "reasoning" (OpenRouter), arrives as [llm.Chunk] Thinking.
// Tool-call fragments are joined with [llm.ToolCallAssembler], which stays
// correct when a server reuses one index for several calls or labels every
// call 0, and the complete calls arrive in the final chunk. Calls without
// an id get "call_<n>", so tool results can always name their call.
//
// Config.ExtraBody and Request.Options add top-level JSON fields for
// server-specific knobs, e.g. {"chat_template_kwargs":{"enable_thinking":false}}
// for Qwen3 on vLLM. Request.Think has no portable equivalent and is not
// sent; assistant thinking is not sent back either, because some servers
// reject it.
//
// Retries, the stall timeout and the typed errors are as in package
// ollama; openai-go's own retries are off so that Config.Retry is the one
// policy in force.
package openai
