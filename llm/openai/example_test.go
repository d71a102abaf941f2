package openai_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/openai"
)

// A chat with native tool calls against any OpenAI-compatible server. The
// server here is llmtest's fake, which streams SSE as vLLM does; point BaseURL
// at a real server's /v1 in a program.
func Example() {
	srv := llmtest.NewFakeOpenAI(llmtest.Script{
		Capabilities: &llm.Capabilities{Tools: true},
		Turns: []llmtest.Turn{{
			Content:   "Let me look.",
			ToolCalls: []llmtest.CallSpec{{Name: "read_file", Arguments: []byte(`{"path":"go.mod"}`)}},
		}},
	})
	defer srv.Close()

	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "Qwen/Qwen3-8B"})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	caps, err := m.Capabilities(ctx)
	if err != nil {
		log.Fatal(err)
	}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "What module is this?"}}}
	if caps.Tools {
		req.Tools = []llm.ToolSpec{{Name: "read_file", Description: "Read a file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	}
	resp, err := llm.Collect(m.Chat(ctx, req))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Message.Content)
	for _, c := range resp.Message.ToolCalls {
		fmt.Println(c.Name, string(c.Arguments))
	}
	// Output:
	// Let me look.
	// read_file {"path":"go.mod"}
}
