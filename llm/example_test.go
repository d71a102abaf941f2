package llm_test

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/tetherdev/tether/llm"
)

// A Model in a few lines: an echo model built with ModelFunc.
func ExampleModelFunc() {
	echo := llm.ModelFunc(func(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
		return func(yield func(llm.Chunk, error) bool) {
			last := req.Messages[len(req.Messages)-1].Content
			if yield(llm.Chunk{Content: "you said: "}, nil) {
				yield(llm.Chunk{Content: last, Done: true, StopReason: llm.StopEnd}, nil)
			}
		}
	})
	r, err := llm.Collect(echo.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	fmt.Println(r.Message.Content, err)
	caps, _ := llm.CapabilitiesOf(context.Background(), echo)
	fmt.Println("native tools:", caps.Tools)
	// Output:
	// you said: hi <nil>
	// native tools: false
}

// Fragments from a server that labels every call index 0: the assembler
// tells the calls apart by id and keeps both, identical as they are.
func ExampleToolCallAssembler() {
	var a llm.ToolCallAssembler
	for _, d := range []llm.ToolCallDelta{
		{Index: 0, ID: "call_1", Name: "run", Arguments: `{"cmd":`},
		{Index: 0, Arguments: `"make"}`},
		{Index: 0, ID: "call_2", Name: "run", Arguments: `{"cmd":"make"}`},
	} {
		a.Add(d)
	}
	calls, err := a.Calls()
	for _, c := range calls {
		fmt.Println(c.Index, c.ID, c.Name, string(c.Arguments))
	}
	fmt.Println(err)
	// Output:
	// 0 call_1 run {"cmd":"make"}
	// 1 call_2 run {"cmd":"make"}
	// <nil>
}

// Typed errors survive wrapping and carry the server's details.
func ExampleStatusError() {
	var err error = &llm.StatusError{Backend: "ollama", StatusCode: 400,
		Message: `registry.ollama.ai/library/gemma:2b does not support tools`, Kind: llm.ErrNoToolSupport}
	err = fmt.Errorf("iteration 1: %w", err)

	if errors.Is(err, llm.ErrNoToolSupport) {
		fmt.Println("switch to text tool calls")
	}
	var se *llm.StatusError
	if errors.As(err, &se) {
		fmt.Println(se.StatusCode, se.Message)
	}
	// Output:
	// switch to text tool calls
	// 400 registry.ollama.ai/library/gemma:2b does not support tools
}
