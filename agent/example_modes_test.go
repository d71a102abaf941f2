package agent_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/tools"
)

// A host defines its own modes next to the built-in ones: Ask reads only
// and answers briefly; Architect may use every tool that stays offline.
// One Executor and one Registry serve them all; Input.Mode picks.
func ExampleModeSpec() {
	dir, ws, reg, _ := setup()
	defer os.RemoveAll(dir)
	defer ws.Close()

	s, err := llmtest.ParseScript(strings.NewReader(`{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"edit_file","arguments":{"path":"hello.txt","old_text":"Helo","new_text":"Hello"}}]}
{"content":"hello.txt greets the world, with a typo. [TASK_COMPLETE]"}
`))
	if err != nil {
		log.Fatal(err)
	}
	cool := 0.2
	x, err := agent.New(agent.Config{
		Model: llmtest.NewScripted(s), Tools: reg, Workspace: ws,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Modes: []agent.ModeSpec{
			{Name: "ask", ReadOnly: true, Role: "You answer questions about this project.", Prompt: "Answer in two sentences at most.", Temperature: &cool, MaxIterations: 4},
			{Name: "architect", Allow: func(s tools.Spec) bool { return !s.OpenWorld }, Prompt: "Propose the design before you change code."},
		},
		Sink: event.SinkFunc(func(_ context.Context, e event.Event) error {
			switch e := e.(type) {
			case event.RunStarted:
				fmt.Println("mode", e.Mode, "offers", e.Tools)
			case event.ToolAction:
				if e.Status != event.StatusRunning {
					fmt.Println(e.Tool, e.Status)
				}
			}
			return nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := x.Run(context.Background(), agent.Input{Prompt: "What does hello.txt say?", Mode: "ask"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StopReason)
	// Output:
	// mode ask offers [read_file]
	// edit_file denied
	// completed
}
