// Package llm is the provider-neutral layer between an agent and a model:
// messages, tool specs, streamed chunks, capabilities and the [Model]
// interface. Backends live in sub-packages (ollama, openai) and a scripted
// model for tests in llmtest.
package llm
