package agent

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tetherdev/tether/agent/event"
)

// Memory is the structured notes of a session: the files read and written, the commands run,
// the errors seen and the plan. The executor keeps it up to date after
// every batch and shows it to the model in the system prompt, so a model
// whose older turns were compacted away still knows what it has done.
// Every list is bounded, keeping the most recent entries.
//
// Pass Result.Memory as Input.Memory to carry it to the next turn;
// sessions do this for you. It encodes as JSON for storage.
type Memory struct {
	FilesRead    []string         `json:"files_read,omitempty"`
	FilesWritten []string         `json:"files_written,omitempty"`
	Commands     []CommandNote    `json:"commands,omitempty"`
	Errors       []string         `json:"errors,omitempty"`
	Plan         []event.TodoItem `json:"plan,omitempty"`
}

// CommandNote is one command the agent ran.
type CommandNote struct {
	Command string             `json:"command"`
	Status  event.ActionStatus `json:"status"`
	Detail  string             `json:"detail,omitempty"` // "exit code 1", the denial reason
}

// Bounds of the memory lists.
const (
	memoryMaxFiles    = 40
	memoryMaxCommands = 12
	memoryMaxErrors   = 8
	memoryMaxItemLen  = 200
)

// Clone returns a deep copy.
func (m *Memory) Clone() *Memory {
	if m == nil {
		return &Memory{}
	}
	return &Memory{
		FilesRead: slices.Clone(m.FilesRead), FilesWritten: slices.Clone(m.FilesWritten),
		Commands: slices.Clone(m.Commands), Errors: slices.Clone(m.Errors), Plan: slices.Clone(m.Plan),
	}
}

// Empty reports whether m holds nothing.
func (m *Memory) Empty() bool {
	return m == nil || len(m.FilesRead)+len(m.FilesWritten)+len(m.Commands)+len(m.Errors)+len(m.Plan) == 0
}

// Render is the text the system prompt shows; "" when m is empty.
func (m *Memory) Render() string {
	if m.Empty() {
		return ""
	}
	var b strings.Builder
	if len(m.Plan) > 0 {
		b.WriteString("Plan:\n")
		for _, t := range m.Plan {
			fmt.Fprintf(&b, "  %s %s\n", todoBox(t.Status), t.Text)
		}
	}
	if len(m.FilesRead) > 0 {
		fmt.Fprintf(&b, "Files read: %s\n", strings.Join(m.FilesRead, ", "))
	}
	if len(m.FilesWritten) > 0 {
		fmt.Fprintf(&b, "Files written: %s\n", strings.Join(m.FilesWritten, ", "))
	}
	if len(m.Commands) > 0 {
		b.WriteString("Commands run:\n")
		for _, c := range m.Commands {
			fmt.Fprintf(&b, "  - %s → %s", c.Command, c.Status)
			if c.Detail != "" {
				fmt.Fprintf(&b, " (%s)", c.Detail)
			}
			b.WriteString("\n")
		}
	}
	if len(m.Errors) > 0 {
		b.WriteString("Errors seen:\n")
		for _, e := range m.Errors {
			fmt.Fprintf(&b, "  - %s\n", e)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// memoryKeeper updates a run's Memory; the todos skill and the loop
// touch it from the loop goroutine, the prompt builder reads it.
type memoryKeeper struct {
	mu  sync.Mutex
	mem *Memory
}

func (k *memoryKeeper) snapshot() *Memory {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.mem.Clone()
}

func (k *memoryKeeper) render() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.mem.Render()
}

func (k *memoryKeeper) setPlan(items []event.TodoItem) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.mem.Plan = slices.Clone(items)
}

// observe notes what a batch did.
func (k *memoryKeeper) observe(results []callResult) {
	k.mu.Lock()
	defer k.mu.Unlock()
	m := k.mem
	for _, r := range results {
		p := r.out.Path
		var cmd string
		if r.tc != nil {
			cmd = r.tc.Effects.Command
			if p == "" {
				_, _, p = actionTitles(r.tc, r.canonical)
			}
		}
		switch {
		case cmd != "" || r.canonical == SkillNamespace+"__build":
			if cmd == "" {
				cmd, _ = strings.CutPrefix(firstLine(r.out.Text), "$ ") // the build skill's first line
			}
			if cmd != "" {
				m.Commands = pushBounded(m.Commands, CommandNote{Command: excerpt(cmd, memoryMaxItemLen), Status: r.out.Status, Detail: excerpt(r.out.Detail, 120)}, memoryMaxCommands)
			}
		case r.out.Wrote && p != "":
			m.FilesWritten = pushUnique(m.FilesWritten, p, memoryMaxFiles)
		case r.tc != nil && len(r.tc.Effects.Reads) > 0 && r.out.Status == event.StatusSuccess && p != "":
			m.FilesRead = pushUnique(m.FilesRead, p, memoryMaxFiles)
		}
		if r.out.Status == event.StatusError || r.out.Status == event.StatusDenied {
			what := r.canonical
			if p != "" {
				what += " " + p
			}
			m.Errors = pushBounded(m.Errors, excerpt(what+": "+firstLine(r.out.Text), memoryMaxItemLen), memoryMaxErrors)
		}
	}
}

// pushUnique appends v, moving it to the end when present, keeping the
// last n entries.
func pushUnique(s []string, v string, n int) []string {
	s = slices.DeleteFunc(s, func(x string) bool { return x == v })
	return pushBounded(s, v, n)
}

func pushBounded[T any](s []T, v T, n int) []T {
	s = append(s, v)
	if len(s) > n {
		s = slices.Delete(s, 0, len(s)-n)
	}
	return s
}
