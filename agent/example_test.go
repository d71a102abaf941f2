package agent_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
)

// A scripted model plays two turns: it fixes a file, then says it is done.
// With a real model, pass ollama.New(…) or openai.New(…) instead.
const script = `{"capabilities":{"tools":true}}
{"content":"Fixing the greeting.","tool_calls":[{"name":"edit_file","arguments":{"path":"hello.txt","old_text":"Helo","new_text":"Hello"}}]}
{"content":"Fixed the typo in hello.txt. [TASK_COMPLETE]"}
`

func setup() (dir string, ws *safety.Workspace, reg *tools.Registry, model *llmtest.ScriptedModel) {
	dir, err := os.MkdirTemp("", "tether-example")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("Helo, world\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	ws, err = safety.OpenWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	reg = &tools.Registry{}
	if err := reg.Register(fstools.NewRead(ws), fstools.NewWrite(ws), fstools.NewEdit(ws)); err != nil {
		log.Fatal(err)
	}
	s, err := llmtest.ParseScript(strings.NewReader(script))
	if err != nil {
		log.Fatal(err)
	}
	return dir, ws, reg, llmtest.NewScripted(s)
}

func Example() {
	dir, ws, reg, model := setup()
	defer os.RemoveAll(dir)
	defer ws.Close()

	x, err := agent.New(agent.Config{
		Model:     model,
		Tools:     reg,
		Workspace: ws,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Sink: event.SinkFunc(func(_ context.Context, e event.Event) error {
			if a, ok := e.(event.ToolAction); ok {
				fmt.Println(strings.TrimSpace(fmt.Sprintf("%s: %s %s", a.Status, a.Title, a.Detail)))
			}
			return nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := x.Run(context.Background(), agent.Input{Prompt: "Fix the typo in hello.txt"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StopReason, "-", res.FinalMessage)
	for _, f := range res.FilesChanged {
		fmt.Printf("%s %s +%d −%d\n", f.Kind, f.Path, f.Added, f.Removed)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "hello.txt"))
	fmt.Print("now: ", string(b))

	// Undo everything the run changed.
	if _, err := x.Undo(context.Background(), res.CheckpointID, checkpoint.UndoOptions{}); err != nil {
		log.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "hello.txt"))
	fmt.Print("after undo: ", string(b))
	// Output:
	// running: Editing hello.txt
	// success: Edited hello.txt +1 −1
	// completed - Fixed the typo in hello.txt.
	// modified hello.txt +1 −1
	// now: Hello, world
	// after undo: Helo, world
}

// Events streams a run as an iterator; JSON encoding gives each event a
// snake_case "type", as the headless example writes them.
func ExampleExecutor_Events() {
	dir, ws, reg, model := setup()
	defer os.RemoveAll(dir)
	defer ws.Close()
	x, err := agent.New(agent.Config{Model: model, Tools: reg, Workspace: ws, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		log.Fatal(err)
	}
	for e, err := range x.Events(context.Background(), agent.Input{Prompt: "Fix the typo in hello.txt"}) {
		if err != nil {
			log.Fatal(err)
		}
		switch e.(type) {
		case event.FinalMessage, event.RunFinished, event.ProgressGroupStarted:
			b, _ := event.Marshal(e)
			fmt.Println(strings.Split(string(b), `,"`)[0] + "}")
		}
	}
	// Output:
	// {"type":"progress_group_started"}
	// {"type":"final_message"}
	// {"type":"run_finished"}
}
