package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tetherdev/tether/toolcall"
)

// usageText is what -h prints before the flags; the verbs are the call
// syntaxes the parser knows and the stream's event types.
const usageText = `toolcall finds the tool calls in a model's output, as Tether's agent does
for models that write calls in their text instead of using native tool
calling. It reads the output on stdin and prints the parse result as JSON:
the calls in source order (name, arguments), the prose with the call markup
removed, any thinking, and the blocks that failed with their reasons.

usage: tether-toolcall [-stream N] [-tools a,b] [-thinking] < model-output

Syntaxes recognised: %s
(<tool_call> JSON and its variants, <function=NAME>, Mistral's [TOOL_CALLS],
Llama's <|python_tag|>, Functionary's >>>name, bare or fenced JSON calls that
end the message, fenced action envelopes, and [name(key=value)] lists when
-tools is given). A call cut off before its closing brackets is repaired
where that is unambiguous, and says so.

With -stream N the input is fed to a streaming parser N bytes at a time, as
a model would stream it, and every event is printed as one JSON line,
followed by a final {"type":"result",…} line equal to the one-shot result.
Event types: %s.

Exit status: 0 on success, 1 when stdin cannot be read, 2 for bad flags.

Examples:
  echo 'Reading it. <tool_call>{"name":"read_file","arguments":{"path":"main.go"}}</tool_call>' | toolcall
  tether-toolcall -tools read_file,write_file < reply.txt     # other names are not calls
  tether-toolcall -stream 16 < reply.txt                      # events as they would stream

Flags:
`

// setUsage makes fs print usageText, then the flags.
func setUsage(fs *flag.FlagSet, w io.Writer) {
	fs.Usage = func() {
		var kinds []string
		for k := toolcall.EventText; k <= toolcall.EventWarning; k++ {
			kinds = append(kinds, k.String())
		}
		syntaxes := strings.ReplaceAll(toolcall.AllFormats.String(), "|", ", ")
		fmt.Fprintf(w, usageText, syntaxes, strings.Join(kinds, ", "))
		fs.PrintDefaults()
	}
}
