// Package ollama is a [llm.Model] backed by Ollama's native /api/chat,
// with streaming, thinking and native tool calls.
package ollama
