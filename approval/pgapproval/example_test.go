package pgapproval_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/approval/pgapproval"
)

// The worker waits on its requests through a board; a UI process, with its
// own board on the same database, lists them and answers.
func Example() {
	ctx := context.Background()
	dsn := os.Getenv("TETHER_PG") // e.g. postgres://tether@db/tether

	// In the worker: the agent's Approver.
	board, err := pgapproval.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer board.Close()
	approver := board.Approver(&approval.Manager{Timeout: 10 * time.Minute})
	_ = approver // agent.Config{Approver: approver, …}

	// In the UI process: show what waits as it changes, answer by id.
	ui, err := pgapproval.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer ui.Close()
	for reqs, err := range ui.Watch(ctx) { // at once, then at every change
		if err != nil {
			log.Print(err) // retried at the next change or poll
			continue
		}
		for _, req := range reqs {
			d := req.Display() // escaped: what a person should see
			log.Printf("%s wants to %s: %s", d.ToolName, d.Kind, d.Subject)
			if err := ui.Resolve(ctx, req.ID, approval.Response{Choice: approval.AllowOnce}); err != nil {
				log.Print(err) // approval.ErrStale: someone answered first, it timed out, or its worker died
			}
		}
	}
}
