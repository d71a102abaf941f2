package terminal

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tetherdev/tether/tools"
)

// Args are run_terminal_command's arguments.
type Args struct {
	Command string `json:"command" jsonschema:"description=The bash command line to run. Runs non-interactively with stdin closed: pass flags such as -y and avoid pagers and editors."`
	Cwd     string `json:"cwd,omitempty" jsonschema:"description=Working directory relative to the workspace root. Default: where the previous command left off (cd persists between commands)."`
	Timeout int    `json:"timeout,omitempty" jsonschema:"description=Seconds before the command and all its child processes are killed. Default 120.,minimum=1"`
}

// Name is the tool's name.
const Name = "run_terminal_command"

// Tool returns run_terminal_command bound to s.
func (s *Shell) Tool() tools.Tool {
	desc := fmt.Sprintf("Run a shell command in the workspace and return its output (first %d and last %d lines when long) and exit code. "+
		"cd and exported variables persist between calls (variables that can make programs run other code, PATH included, are reset for every call). Commands are killed after their timeout; long-running servers and watchers are not supported.",
		s.cfg.Head, s.cfg.Tail)
	return tools.New(Name, desc, func(ctx context.Context, a Args) (tools.Result, error) {
		res, err := s.Run(ctx, Command{Command: a.Command, Dir: a.Cwd, Timeout: time.Duration(a.Timeout) * time.Second})
		if err != nil {
			return tools.Result{}, err
		}
		return s.toolResult(res), nil
	},
		// Longer than any command timeout: the command's own timeout fires
		// first and reports the output so far.
		tools.WithTimeout(s.cfg.MaxTimeout+time.Minute),
		tools.WithEffects(func(_ context.Context, a Args) (tools.Effects, error) {
			// The directory the command really starts in: its cwd, or
			// where the previous command left the shell (cd persists).
			dir := a.Cwd
			if dir == "" {
				dir = s.Cwd()
			}
			return tools.Effects{Command: a.Command, Dir: dir}, nil
		}),
		tools.WithTitle(func(c tools.Call, _ tools.Effects) tools.Title {
			return tools.Verb("Running ", "Ran ", "Run ", "`"+tools.Shorten(c.StringArg("command"), 80)+"`", tools.KindCommand)
		}),
		tools.WithArgAliases("command", "cmd", "script", "command_line", "commandLine"),
		tools.WithArgAliases("cwd", "dir", "directory", "working_directory", "workdir", "path"),
		tools.WithArgAliases("timeout", "timeout_seconds", "timeoutSeconds"),
	)
}

func (s *Shell) toolResult(r Result) tools.Result {
	var b strings.Builder
	if r.Output == "" {
		b.WriteString("(no output)")
	} else {
		b.WriteString(r.Output)
	}
	b.WriteString("\n")
	switch {
	case r.TimedOut:
		fmt.Fprintf(&b, "[timed out after %s: the command and its child processes were killed; output so far is above]", r.Elapsed.Round(time.Second))
	case r.Canceled:
		b.WriteString("[cancelled: the command and its child processes were killed]")
	case r.Signal != "":
		fmt.Fprintf(&b, "[killed by signal: %s]", r.Signal)
	default:
		fmt.Fprintf(&b, "[exit code: %d]", r.ExitCode)
	}
	if r.Leftover {
		b.WriteString("\n" + leftoverWarning)
	}
	if len(r.Dropped) > 0 {
		b.WriteString("\n[not carried to the next command:")
		for _, d := range r.Dropped {
			fmt.Fprintf(&b, "\n  %s: %s", d.Name, d.Reason)
		}
		b.WriteString("\n set such a variable in the same command that needs it]")
	}
	if r.DirReset != "" {
		fmt.Fprintf(&b, "\n[the next command starts at the workspace root: %s]", r.DirReset)
	}
	rel := s.rel(s.Cwd())
	if rel != "." {
		fmt.Fprintf(&b, "\n[cwd: %s]", rel)
	}
	res := tools.Result{
		Text:    b.String(),
		IsError: r.TimedOut || r.Canceled || r.ExitCode != 0,
		Meta: tools.Meta{
			Cwd:          s.rel(r.Dir),
			TotalLines:   r.Lines,
			Bytes:        r.Bytes,
			Truncated:    r.Omitted > 0,
			OmittedLines: r.Omitted,
			TimedOut:     r.TimedOut,
		},
	}
	if !r.TimedOut && !r.Canceled && r.Signal == "" {
		code := r.ExitCode
		res.Meta.ExitCode = &code
	}
	return res
}

func (s *Shell) rel(dir string) string {
	r, err := filepath.Rel(s.root, dir)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(r)
}
