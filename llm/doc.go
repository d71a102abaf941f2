// Package llm is the provider-neutral layer between an agent and a model:
// messages, tool specs, streamed chunks, capabilities and the [Model]
// interface. Backends live in sub-packages (ollama, openai) and a scripted
// model for tests in llmtest.
//
// # Streaming
//
// A [Model] has one method, Chat, which returns an iter.Seq2 of [Chunk]s:
// deltas of thinking and content, complete tool calls, and a final chunk
// with Done set, the token counts and the [StopReason]. Range over it, and
// stop whenever you like: breaking out of the loop, or cancelling the
// context, closes the HTTP stream before the loop statement finishes.
//
//	for c, err := range m.Chat(ctx, req) {
//		if err != nil {
//			return err // typed: see Errors below
//		}
//		fmt.Print(c.Content)
//	}
//
// [Collect] drains a stream into a [Response]: the assistant [Message] with
// its thinking, content and tool calls kept together (a model that loses
// its own reasoning between iterations loses its chain of thought), ready
// to append to the history, plus the usage and stop reason. On error it
// returns what had arrived, so nothing streamed is lost.
//
// A Model is small enough to write in ten lines; [ModelFunc] adapts a
// function. Models that know what they can do also implement
// [CapabilityReporter]; ask through [CapabilitiesOf], which answers "no
// native tools" for models that do not say. An agent uses Capabilities.Tools
// to choose between native tool calls and calls written in text.
//
// # Tool calls
//
// Ollama sends each tool call whole; OpenAI-style servers send fragments
// that [ToolCallAssembler] joins. Servers disagree about the fragments'
// index (some reuse one index for several calls, some label every call 0),
// so the assembler also starts a new call on a new id or name. Calls are
// never de-duplicated: a model that asks twice for the same command gets it
// run twice, as it asked.
//
// # Errors
//
// Backends report failures with sentinel errors, usually inside a
// [*StatusError] that carries the HTTP status, the server's message, a
// body excerpt and a hint: [ErrModelNotFound], [ErrUnauthorized],
// [ErrContextTooLong], [ErrNoToolSupport] (switch to text tool calls),
// [ErrRateLimited], [ErrStalled] and [ErrIncomplete] (the stream broke
// after some content was delivered). Test them with errors.Is and
// errors.As.
//
// # Retries
//
// [RetryPolicy] is shared by the backends: connection errors, 408, 429 and
// 5xx answers are retried with exponential backoff and jitter, honouring
// Retry-After, but only before the first byte of a response has arrived.
// Once content has been delivered nothing is retried, so nothing is ever
// delivered twice; the error is returned instead. Its zero value is a
// sensible default, and its Sleep and Now fields let tests run retries
// instantly.
//
// # Token counts
//
// [EstimateTokens] sizes a conversation without a tokenizer (about four
// ASCII bytes a token, a token a rune beyond ASCII, erring high), and
// [EstimateToolSpecTokens] the native tool specs sent beside it. A
// [TokenCounter] is where a caller with the backend's tokenizer plugs in
// exact counts instead.
package llm
