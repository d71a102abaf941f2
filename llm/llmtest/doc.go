// Package llmtest holds test doubles for [llm.Model], shipped for users the
// way net/http/httptest is: a scripted model, recorded-session replay, fake
// Ollama and OpenAI servers with fault injection, and [Open], which turns a
// model string into a Model.
//
// # Scripted model
//
// A script is JSON lines. An optional first line states capabilities; each
// further line is one model response, every field optional:
//
//	{"capabilities":{"tools":true,"thinking":true}}
//	{"thinking":"The user wants a file.","tool_calls":[{"name":"write_file","arguments":{"path":"hello.txt","content":"hi"}}]}
//	{"content":"Created hello.txt. [TASK_COMPLETE]"}
//
// [NewScripted] (or [Replay] for a file) plays it: each Chat call streams
// the next response in small chunks of varying size, so that code which
// must handle markers split across chunks is exercised by every test. A
// typo in a field name is a parse error with its line number; asking for
// more responses than the script holds is [ErrScriptExhausted].
// [ScriptedModel.Requests] shows what the agent sent.
//
// # Record and replay
//
// [NewRecorder] wraps any Model and writes each completed response as a
// script line, so a session with a real model replays offline:
//
//	rec := llmtest.NewRecorder(model, file)   // use rec as the model
//	…
//	replay, err := llmtest.Replay("session.jsonl")
//
// # Fake servers
//
// [NewFakeOllama] and [NewFakeOpenAI] start httptest servers that play a
// script in the real wire formats (Ollama's NDJSON /api/chat, OpenAI's SSE
// chat.completion.chunk events) and misbehave on demand:
//
//	srv := llmtest.NewFakeOllama(script)
//	defer srv.Close()
//	srv.Fail(llmtest.RateLimited(2*time.Second), llmtest.ResetAfter(3))
//
// Each chat request takes the next fault: an HTTP status (429 with
// Retry-After, 500, …), a connection reset before or during the stream, a
// malformed line, or a stall. Requests returns what the server received,
// so a test can count retries.
//
// They also have the window real servers have, because a fake kinder than
// the real part hides bugs: the fake Ollama runs each request with its
// num_ctx (4096 without one, Ollama's default on most machines) and cuts a
// prompt that overflows it as Ollama does, silently, losing old messages
// and then the head of the system prompt; the fake OpenAI-compatible
// server refuses it with vLLM's or llama.cpp's 400. Prompts says what the
// model saw of each request:
//
//	for _, p := range srv.Prompts() {
//		if !p.Whole() { t.Errorf("the model lost part of its prompt: %+v", p) }
//	}
//
// # Model strings
//
// [Open] reads the -model flag of every example: "ollama:NAME" (server from
// OLLAMA_HOST), "openai:NAME" (OPENAI_BASE_URL and OPENAI_API_KEY) and
// "script:FILE". The scheme ends at the first colon, so "ollama:qwen3:8b"
// names the model "qwen3:8b".
package llmtest
