// Package event holds what a user interface needs to show and persist an
// agent's runs, without the agent loop: the [Event] types a run reports
// in order, the [Sink] that receives them, and their JSON form ([Marshal],
// [Unmarshal], [JSONLines]).
//
// A UI imports this package alone (it links neither the loop, nor a model
// backend, nor a store) and switches on the concrete type:
//
//	switch e := e.(type) {
//	case event.TextDelta:
//		fmt.Print(e.Text)
//	case event.ToolAction:
//		fmt.Printf("%s (%s)\n", e.Title, e.Status)
//	}
//
// Every run opens with [RunStarted] and closes with [RunFinished]; a host
// persists and displays the very same sequence, so a reload shows what
// was seen live.
package event
