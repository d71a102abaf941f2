package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tetherdev/tether/examples/internal/hostcfg"
)

// usageText is what -h prints before the flags: enough to drive the
// gateway without reading its source. Keep it in step with read (every
// request type) and with the gateway's own events.
const usageText = `headless is Tether's agent as a JSON-lines gateway: write requests on
standard input, one JSON object per line; read every event of every run on
standard output, one JSON object per line with a snake_case "type".

usage: headless -model MODEL [-workspace DIR] [flags] < requests.jsonl

MODEL is ollama:NAME (server from OLLAMA_HOST), openai:NAME (OPENAI_BASE_URL,
OPENAI_API_KEY) or script:FILE, a scripted model for offline runs: JSON lines,
one model response per line, e.g.
  {"content":"Reading it.","tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}

Requests (unknown fields are an error):
  {"type":"prompt","text":"Fix the failing test","mode":"agent"}
      runs a task; mode is agent (default), explore, plan or review; each
      prompt continues the conversation of the previous one
  {"type":"prompt","text":"Why?","attach":["main.go","lib/x.go:L10-L40"]}
      attach: files or line ranges the model gets as already read
  {"type":"cancel"}
      ends the running prompt (its model stream stops, its command's
      processes are killed, its approvals are denied) and drops the prompts
      sent before the cancel that have not started; its run_finished says
      stop_reason "canceled". Later prompts run as usual.
  {"type":"undo","checkpoint":"ID"}
      reverts a run's file changes; ID from files_changed or run_finished,
      "" for the last run that changed files
  {"type":"approve","id":"ID","decision":"allow|allow_session|deny","message":"why"}
      answers an approval_requested event (with -approvals stdin);
      allow_session also allows the same exact action later in the session;
      message goes to the model with a deny
  {"type":"apply","token":"chg_…"}
      writes a change staged by a file tool (with -staging); a token works
      once and is refused if the file changed since it was staged

Prompts, undos and applies run one after another in input order; approvals
and cancels are served as soon as they are read, even while a run waits.

Events are the agent's (run_started, text_delta, thinking_delta, tool_action,
approval_requested, approval_resolved, files_changed, final_message,
run_finished, …) plus the gateway's own:
  {"type":"undo_finished","checkpoint":"…","restored":[…],"removed":[…],"skipped":[…]}
  {"type":"change_applied","token":"chg_…","path":"…","checkpoint":"…","added":N,"removed":N}
  {"type":"error","line":3,"error":"…"}   a request (input line 3) that could not be served

Nobody stands behind a gateway: by default confirm-level actions (a command
no rule allows, a write to a sensitive file such as .env) are denied and the
model is told why. With -approvals stdin the host answers them; unanswered
ones are denied after -approval-timeout, and all of them when input ends.

Files outside the workspace: commands run in a Landlock sandbox (-sandbox)
that also lets them write the temporary directory and the user's
cache directory, shared with your other programs:
  %s
because compilers and test runners keep their caches there (Go's build
cache, pip's, npm's). The directories are logged at start. Set
XDG_CACHE_HOME to point commands elsewhere; -sandbox off lifts every limit.

%s
Exit status: 0 when input ends and the work it asked for is done; 1 when
the workspace or the model cannot be opened or input cannot be read; 2 for
bad flags.

Examples:
  echo '{"type":"prompt","text":"What does main.go do?","mode":"explore"}' |
    headless -workspace . -model ollama:qwen3:8b
  headless -workspace DIR -model script:session.jsonl -approvals stdin -allow 'go test' < requests.jsonl

Flags:
`

// setUsage makes fs print usageText, then the flags.
func setUsage(fs *flag.FlagSet, w io.Writer) {
	fs.Usage = func() {
		dir := cacheDir()
		if dir == "" {
			dir = "none on this system"
		}
		fmt.Fprintf(w, usageText, dir, hostcfg.SettingsHelp)
		fs.PrintDefaults()
	}
}
