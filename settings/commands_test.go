package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

// The command files are written the way Claude Code's documentation on
// custom slash commands shows them ($ARGUMENTS, $1 $2, description and
// argument-hint front matter, allowed-tools), and Gemini CLI's {{args}}.
func TestCommands(t *testing.T) {
	env := Env{ConfigDir: t.TempDir()}
	ws := t.TempDir()
	write(t, filepath.Join(env.ConfigDir, "tether", "commands", "fix-issue.md"), "Fix issue #$ARGUMENTS following our coding standards")
	write(t, filepath.Join(env.ConfigDir, "tether", "commands", "hello.md"), "Say hello.")
	write(t, filepath.Join(ws, CommandsDir, "review-pr.md"), `---
argument-hint: [pr-number] [priority] [assignee]
description: Review pull request
allowed-tools: Bash(git add:*), Bash(git status:*)
---

Review PR #$1 with priority $2 and assign to $3.
`)
	write(t, filepath.Join(ws, CommandsDir, "hello.md"), "Say hello in French.") // replaces the user's
	write(t, filepath.Join(ws, CommandsDir, "explain.md"), "Explain {{args}} simply.")
	write(t, filepath.Join(ws, CommandsDir, "notes.txt"), "not a command")
	cmds, err := env.Commands(ws)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Command{}
	var names []string
	for _, c := range cmds {
		byName[c.Name] = c
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "explain,fix-issue,hello,review-pr" {
		t.Fatalf("commands = %v", names)
	}
	for _, c := range []struct{ name, args, want string }{
		{"fix-issue", "123", "Fix issue #123 following our coding standards"},
		{"review-pr", `456 high "Ada Lovelace"`, "Review PR #456 with priority high and assign to Ada Lovelace."},
		{"review-pr", "7", "Review PR #7 with priority  and assign to ."},
		{"explain", "goroutines", "Explain goroutines simply."},
		{"hello", "", "Say hello in French."},
		{"hello", "and goodbye", "Say hello in French.\n\nand goodbye"},
	} {
		if got := byName[c.name].Expand(c.args); got != c.want {
			t.Errorf("/%s %s = %q, want %q", c.name, c.args, got, c.want)
		}
	}
	if r := byName["review-pr"]; r.Description != "Review pull request" || r.ArgumentHint != "[pr-number] [priority] [assignee]" || r.Scope != ScopeProject {
		t.Errorf("front matter: %+v", r)
	}
	if h := byName["hello"]; h.Scope != ScopeProject || h.Description != "Say hello in French." {
		t.Errorf("project command does not replace the user's: %+v", h)
	}
}

func TestCommandErrors(t *testing.T) {
	for file, text := range map[string]string{
		"Deploy Now.md": "x",
		"open.md":       "---\ndescription: never closed\nDo it.",
		"empty.md":      "---\ndescription: nothing\n---\n",
	} {
		ws := t.TempDir()
		write(t, filepath.Join(ws, CommandsDir, file), text)
		_, err := Env{ConfigDir: t.TempDir()}.Commands(ws)
		if err == nil || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: %v, want an error naming the file", file, err)
		}
	}
}
