package main

import (
	"flag"
	"fmt"
	"io"
)

// usageText is what -h prints before the flags.
const usageText = `demo runs one agent session you can watch, offline, with nothing installed
but Go. It copies a small Go project with a wrong Mean into a temporary
directory and asks the agent to fix Mean, add Median, run the tests and
update the README. Everything after the model is the real thing: the
streaming parser, the safety analysis, the approval gate (answered by a
scripted approver that prints each question and refuses the dangerous
command), checkpoints, and the built-in file and terminal tools. At the end
it shows the diff, undoes the checkpoint and checks the tree is the original.

usage: demo [-model MODEL] [-tool-calling native|text|envelope] [-keep] [-v] [-wire-log FILE]

Without -model it plays a recorded session of a small local model. MODEL is
ollama:NAME (server from OLLAMA_HOST), openai:NAME (OPENAI_BASE_URL,
OPENAI_API_KEY) or script:FILE, JSON lines with one model response each:
  {"content":"Reading it.","tool_calls":[{"name":"read_file","arguments":{"path":"stats.go"}}]}

The project lives in a temporary directory, removed at the end unless -keep
is given. The agent's "go test" fills Go's build cache (go env GOCACHE, in
your user cache directory) as any go command does; the demo writes nothing
else outside the temporary directory.

Exit status: 0 when every check passed; 1 when one failed (the demo is also
a test) or the model cannot be opened; 2 for bad flags.

Examples:
  demo                                   # the recorded session
  demo -model ollama:qwen3:8b -v         # a live model, with the safety log
  demo -model ollama:qwen2.5-coder:7b -tool-calling text -keep

Flags:
`

// setUsage makes fl print usageText, then the flags.
func setUsage(fl *flag.FlagSet, w io.Writer) {
	fl.Usage = func() {
		fmt.Fprint(w, usageText)
		fl.PrintDefaults()
	}
}
