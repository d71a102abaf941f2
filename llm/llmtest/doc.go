// Package llmtest holds test doubles for [llm.Model]: a scripted model,
// recorded-session replay, fake Ollama and OpenAI servers with fault
// injection, and Open, which turns a model string into a Model.
package llmtest
