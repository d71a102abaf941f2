package session_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/agent/session/sqlitestore"
	"github.com/tetherdev/tether/llm/llmtest"
)

// A session keeps the conversation between turns and across restarts;
// its event log replays what a UI showed.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "tether-session")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// The same file would hold the checkpoints (checkpoint/sqlitestore).
	store, err := sqlitestore.Open(ctx, filepath.Join(dir, "tether.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	s, err := llmtest.ParseScript(strings.NewReader(`{"content":"Hello! [TASK_COMPLETE]"}
{"content":"You said hi. [TASK_COMPLETE]"}`))
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := session.NewManager(store, agent.Config{Model: llmtest.NewScripted(s)})
	if err != nil {
		log.Fatal(err)
	}
	sess, err := mgr.Create(ctx, "Greetings")
	if err != nil {
		log.Fatal(err)
	}
	for _, prompt := range []string{"hi", "what did I say?"} {
		res, err := sess.Run(ctx, agent.Input{Prompt: prompt})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.FinalMessage)
	}

	// Later, perhaps in another process: list, open, replay.
	infos, err := mgr.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d turns\n", infos[0].Title, infos[0].Runs)
	again, err := mgr.Open(ctx, infos[0].ID)
	if err != nil {
		log.Fatal(err)
	}
	for se, err := range again.Events(ctx, 0) {
		if err != nil {
			log.Fatal(err)
		}
		if fm, ok := se.Event.(event.FinalMessage); ok {
			fmt.Println("replayed:", fm.Text)
		}
	}
	// Output:
	// Hello!
	// You said hi.
	// Greetings: 2 turns
	// replayed: Hello!
	// replayed: You said hi.
}
