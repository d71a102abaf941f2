package agent_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
)

// Code the user attached in the editor reaches the model before the
// question, labelled so that the model does not re-read it.
func ExampleFormatUserContext() {
	sel, err := agent.ParseAttachment("shop/cart.go:L12-L14")
	if err != nil {
		log.Fatal(err)
	}
	sel.Content = "func Total(items []Item) int {\n\treturn sum(items)\n}"
	fmt.Println(agent.FormatUserContext([]agent.Attachment{sel}, "Why does Total ignore discounts?"))
	// Output:
	// User's selected code from shop/cart.go:L12-L14 (already provided — do not re-read):
	// ```
	// func Total(items []Item) int {
	// 	return sum(items)
	// }
	// ```
	//
	// Why does Total ignore discounts?
}

// The host compacts a long conversation when the user asks for it, and
// shows the summary that replaces the older turns.
func ExampleExecutor_Compact() {
	s, err := llmtest.ParseScript(strings.NewReader(`{"content":"The user wanted the retry bug found; it is in client.go, line 88."}`))
	if err != nil {
		log.Fatal(err)
	}
	x, err := agent.New(agent.Config{Model: llmtest.NewScripted(s)})
	if err != nil {
		log.Fatal(err)
	}
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "Find the retry bug."},
		{Role: llm.RoleAssistant, Content: "Reading client.go."},
		{Role: llm.RoleUser, Content: strings.Repeat("client.go source…\n", 3000)},
		{Role: llm.RoleAssistant, Content: "It is on line 88."},
		{Role: llm.RoleUser, Content: "Now fix it."},
		{Role: llm.RoleAssistant, Content: "Fixing."},
	}
	c, err := x.Compact(context.Background(), history, agent.CompactOptions{Task: -1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Summary)
	fmt.Println(len(c.History), "messages:", c.Summarized, "summarised,", c.Kept, "kept")
	fmt.Println(c.TokensAfter < c.TokensBefore)
	// Output:
	// The user wanted the retry bug found; it is in client.go, line 88.
	// 4 messages: 3 summarised, 3 kept
	// true
}
