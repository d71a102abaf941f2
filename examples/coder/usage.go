package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/examples/internal/hostcfg"
)

// usageHead is what -h prints before the slash commands, the keys and the
// flags.
const usageHead = `coder is a full-screen coding agent for the repository you run it in
(the current directory, or -workspace DIR; every file tool is confined to it).

usage: coder -model MODEL [flags]

MODEL is ollama:NAME (server from OLLAMA_HOST), openai:NAME (OPENAI_BASE_URL,
OPENAI_API_KEY) or script:FILE, a scripted model for offline runs (JSON lines,
one model response per line).

Type a task and press Enter. Commands no rule allows and writes to sensitive
files open an approval card; every task's file changes are one checkpoint you
can review, keep or undo. Without a terminal (or with TERM=dumb) coder reads
lines and prints plain text.

Files it keeps, under your user cache directory and shared by every
workspace you run coder in:
  %s   sessions and checkpoints (-db; -db :memory: keeps nothing)
  %s  the safety and approval log (-log)

%s
Examples:
  cd ~/src/myproject && coder -model ollama:qwen3:8b
  coder -workspace ~/src/myproject          # the model and rules from its settings
  coder -model script:session.jsonl -db :memory:     # offline, keeps nothing
  coder -model ollama:qwen3:8b -session ID           # resume a session (/sessions lists them)

Slash commands:
`

// setUsage makes fl print the overview, the slash commands, the keys and
// the flags, naming the files kept under the user's cache directory
// (stateDir).
func setUsage(fl *flag.FlagSet, w io.Writer, stateDir string) {
	fl.Usage = func() {
		fmt.Fprintf(w, usageHead, filepath.Join(stateDir, "coder.db"), filepath.Join(stateDir, "coder.log"), hostcfg.SettingsHelp)
		for _, c := range commands {
			fmt.Fprintf(w, "  %-10s %-28s %s\n", c.name, c.args, c.help)
		}
		fmt.Fprintf(w, "\nKeys:\n  %s\n\nFlags:\n", strings.ReplaceAll(keysHelp, "\n", "\n  "))
		fl.PrintDefaults()
	}
}
