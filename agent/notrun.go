package agent

import (
	"errors"
	"fmt"

	"github.com/tetherdev/tether/toolcall"
)

// A call block the parser judged shown rather than made (an example, a
// quotation, code, a hedged call: toolcall.ErrMention) is not run, but it
// never vanishes silently: the host gets a NoticeCallNotRun and the model
// is told, so that a call it meant is written again and the run does not
// end "completed" with raw markup as the answer.

// isMention reports a parser failure that is a call shown, not made.
func isMention(f toolcall.Failure) bool { return errors.Is(f.Err, toolcall.ErrMention) }

// notRunText tells the model that a call in its reply was not run, why,
// and how to make it a call.
func notRunText(f toolcall.Failure) string {
	return fmt.Sprintf("A tool call in your reply was not run: %s.\nWhat you wrote: %s\nIf you meant to call the tool, write the call again on its own, outside code spans, quotes and examples; if it was only an example, go on.", f.Reason, excerpt(f.Raw, 300))
}

// toModel is what the model is told about the calls of its reply that
// did not run: unreadable calls first, then calls shown, not made.
func (x extraction) toModel() []string {
	if len(x.notRun) == 0 {
		return x.problems
	}
	return append(append([]string(nil), x.problems...), x.notRun...)
}
