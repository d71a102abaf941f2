package ollama_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
)

// A chat with native tool calls. The server here is llmtest's fake Ollama,
// which speaks /api/chat and /api/show as Ollama does; point Host at a real
// server (or leave it empty for localhost:11434) in a program.
func Example() {
	srv := llmtest.NewFakeOllama(llmtest.Script{
		Capabilities: &llm.Capabilities{Tools: true},
		Turns: []llmtest.Turn{{
			Content:   "Let me look.",
			ToolCalls: []llmtest.CallSpec{{Name: "read_file", Arguments: []byte(`{"path":"go.mod"}`)}},
		}},
	})
	defer srv.Close()

	m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "qwen3:8b"})
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
