// Package openai is a [llm.Model] for any OpenAI-compatible
// /v1/chat/completions server: vLLM, llama.cpp server, LM Studio,
// OpenRouter and OpenAI itself.
package openai
