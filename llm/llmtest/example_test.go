package llmtest_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
)

// A scripted model plays canned responses in small streamed chunks, so
// agent code can be tested without a real model.
func ExampleNewScripted() {
	script, err := llmtest.ParseScript(strings.NewReader(`{"capabilities":{"tools":true,"thinking":true}}
{"thinking":"I need the file list.","tool_calls":[{"name":"list_files","arguments":{"dir":"."}}]}
{"content":"There are two files. [TASK_COMPLETE]"}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := llmtest.NewScripted(script)
	ctx := context.Background()
	for range 2 {
		r, err := llm.Collect(m.Chat(ctx, llm.Request{}))
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range r.Message.ToolCalls {
			fmt.Printf("call %s %s\n", c.Name, c.Arguments)
		}
		if r.Message.Content != "" {
			fmt.Println(r.Message.Content)
		}
	}
	_, err = llm.Collect(m.Chat(ctx, llm.Request{}))
	fmt.Println(err)
	// Output:
	// call list_files {"dir":"."}
	// There are two files. [TASK_COMPLETE]
	// scripted: request 3, but the script has 2 response(s): script exhausted: the agent asked for more model responses than the script has; add lines to the script or check why the agent did not stop
}

// Open turns the -model flag of every example into a Model.
func ExampleOpen() {
	m, err := llmtest.Open("script:testdata/hello.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	caps, _ := llm.CapabilitiesOf(context.Background(), m)
	fmt.Printf("tools=%v thinking=%v\n", caps.Tools, caps.Thinking)

	_, err = llmtest.Open("qwen3:8b")
	fmt.Println(err)
	// Output:
	// tools=true thinking=true
	// modelstr: model "qwen3:8b": scheme "qwen3": unknown model scheme: use ollama:NAME, openai:NAME or script:FILE
}

// A fake server speaks Ollama's wire format and fails on demand: here a
// 503 that the backend retries transparently.
func ExampleNewFakeOllama() {
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: "pong"}}})
	defer srv.Close()
	srv.Fail(llmtest.Status(503))

	m, err := llmtest.Open("ollama:fake",
		llmtest.WithGetenv(func(string) string { return srv.URL }),
		llmtest.WithHTTPClient(srv.Client()),
		llmtest.WithRetry(llm.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := llm.Collect(m.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "ping"}}}))
	fmt.Println(r.Message.Content, err, len(srv.Requests()), "requests")
	// Output:
	// pong <nil> 2 requests
}
