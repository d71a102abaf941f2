package agent

import (
	"fmt"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// Read-only modes: explore, plan and
// review offer only read-only tools and refuse every other call in code,
// whatever the model writes; the prompt saying so is a courtesy, not the
// enforcement. Review may also run read-only git commands, checked by
// safety analysis. There are no checkpoints and no approvals: nothing
// that could need either can run.

// readOnlyGitSubcommands never change the repository or the work tree
// (with the flag checks below).
var readOnlyGitSubcommands = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "annotate": true,
	"grep": true, "ls-files": true, "ls-tree": true, "rev-parse": true, "describe": true,
	"shortlog": true, "cat-file": true, "rev-list": true, "merge-base": true, "name-rev": true,
	"whatchanged": true, "diff-tree": true, "diff-files": true, "diff-index": true, "count-objects": true,
	"branch": true, "tag": true, "remote": true, "stash": true, "reflog": true, "config": true,
}

// readOnlyGitProblem says why cmd is not a read-only git command, or ""
// when it is. Every sub-command must be git with a read-only subcommand,
// and the safety analysis must find nothing to worry about (no writes,
// no redirects, nothing it cannot analyse).
func readOnlyGitProblem(cmd string) string {
	a := safety.AnalyzeCommand(cmd)
	if a.Unanalyzable {
		return "the command cannot be analysed statically"
	}
	if len(a.Commands) == 0 {
		return "there is no command"
	}
	for _, p := range a.Paths {
		if p.Op == safety.OpWrite {
			return fmt.Sprintf("it writes %s", p.Path)
		}
	}
	for _, c := range a.Commands {
		if c.Name != "git" {
			return fmt.Sprintf("%s is not git", c.Name)
		}
		if why := gitArgsProblem(c.Args); why != "" {
			return why
		}
	}
	if a.Severity > safety.SeverityNone {
		return fmt.Sprintf("safety analysis rates it %s: %s", a.Severity, strings.Join(a.Reasons(), "; "))
	}
	return ""
}

func gitArgsProblem(args []string) string {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		switch a := args[i]; {
		case a == "--no-pager" || a == "-P" || a == "--no-optional-locks":
		case a == "-C":
			i++ // the directory
		default:
			// -c and --config-env can set core.pager, core.fsmonitor and
			// friends, which run programs; --git-dir and --work-tree point
			// git elsewhere.
			return fmt.Sprintf("git option %s is not allowed", a)
		}
	}
	if i >= len(args) {
		return "git needs a subcommand"
	}
	sub, rest := args[i], args[i+1:]
	if !readOnlyGitSubcommands[sub] {
		return fmt.Sprintf("git %s can change the repository", sub)
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "--output") || a == "-o" || strings.HasPrefix(a, "--ext-diff") || strings.HasPrefix(a, "--textconv") || strings.HasPrefix(a, "--open-files-in-pager") || a == "-O" {
			return fmt.Sprintf("git %s %s can write files or run programs", sub, a)
		}
	}
	switch sub {
	case "branch", "tag":
		// Listing only: any non-flag argument names a branch or tag to create.
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") || a == "-d" || a == "-D" || a == "-m" || a == "-M" || a == "-c" || a == "-C" || strings.HasPrefix(a, "--delete") || strings.HasPrefix(a, "--move") || strings.HasPrefix(a, "--copy") || strings.HasPrefix(a, "--set-upstream") || strings.HasPrefix(a, "--unset-upstream") || a == "-f" || a == "--force" || a == "-a" && sub == "tag" || a == "-s" || a == "-u" {
				return fmt.Sprintf("git %s %s changes refs; only listing is allowed", sub, a)
			}
		}
	case "stash", "reflog", "remote":
		if len(rest) > 0 && !(rest[0] == "list" || rest[0] == "show" || (sub == "remote" && (rest[0] == "-v" || rest[0] == "get-url"))) {
			return fmt.Sprintf("git %s %s changes the repository; only list and show are allowed", sub, rest[0])
		}
	case "config":
		if len(rest) == 0 || !(rest[0] == "--get" || rest[0] == "--list" || rest[0] == "-l" || rest[0] == "--get-all" || rest[0] == "get" || rest[0] == "list") {
			return "git config may only read (--get, --list)"
		}
	}
	return ""
}
