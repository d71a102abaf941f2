package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// CommandsDir is where a project keeps its custom slash commands; the
// user's are in $XDG_CONFIG_HOME/tether/commands.
const CommandsDir = ".tether/commands"

// Command is a custom slash command: a prompt kept in a Markdown file,
// NAME.md, run by typing /NAME with arguments. The format is the one
// Claude Code, Codex and Gemini CLI users already write:
//
//	---
//	description: Review a file for security problems
//	argument-hint: FILE [FOCUS]
//	---
//	Review $1 for security problems, especially $2.
//
// The front matter is optional. In the body, $ARGUMENTS (or {{args}})
// is everything typed after the command, and $1 … $9 its words; a quoted
// argument ("two words") is one word.
type Command struct {
	Name         string // without the slash
	Description  string
	ArgumentHint string
	Body         string
	File         string // where it was read from
	Scope        Scope  // ScopeUser or ScopeProject; a project command replaces a user one
}

var commandName = lazyregexp.New(`^[a-z0-9][a-z0-9_-]*$`)

// Commands lists the custom commands of workspace and of the user, by
// name. A file whose name is not a command name (lower-case letters,
// digits, '-' and '_'), or whose front matter is not closed, is an
// error naming it.
func Commands(workspace string) ([]Command, error) { return Env{}.Commands(workspace) }

// Commands is Commands with e's user directory.
func (e Env) Commands(workspace string) ([]Command, error) {
	var out []Command
	dir, err := e.configDir()
	if err == nil {
		if out, err = readCommands(filepath.Join(dir, "tether", "commands"), ScopeUser, out); err != nil {
			return nil, err
		}
	}
	out, err = readCommands(filepath.Join(workspace, filepath.FromSlash(CommandsDir)), ScopeProject, out)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func readCommands(dir string, scope Scope, into []Command) ([]Command, error) {
	files, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return into, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings: commands: %w", err)
	}
	for _, f := range files {
		name, ok := strings.CutSuffix(f.Name(), ".md")
		if !ok || f.IsDir() {
			continue
		}
		path := filepath.Join(dir, f.Name())
		if !commandName.MatchString(name) {
			return nil, fmt.Errorf("%s: %q is not a command name; name the file with lower-case letters, digits, '-' and '_' (it is typed as /NAME)", path, name)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("settings: commands: %w", err)
		}
		c, err := parseCommand(path, name, string(data))
		if err != nil {
			return nil, err
		}
		c.Scope = scope
		into = slices.DeleteFunc(into, func(o Command) bool { return o.Name == name })
		into = append(into, c)
	}
	return into, nil
}

func parseCommand(path, name, text string) (Command, error) {
	c := Command{Name: name, File: path}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		front, body, ok := strings.Cut(rest, "\n---\n")
		if !ok {
			front, ok = strings.CutSuffix(rest, "\n---")
			body = ""
		}
		if !ok {
			return c, fmt.Errorf("%s: the front matter opened by --- on line 1 is never closed by a --- line", path)
		}
		for line := range strings.Lines(front) {
			k, v, _ := strings.Cut(line, ":")
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			switch strings.TrimSpace(k) {
			case "description":
				c.Description = v
			case "argument-hint":
				c.ArgumentHint = v
			}
			// Other keys (allowed-tools, model…) belong to other agents;
			// Tether grants nothing from a command file.
		}
		text = body
	}
	c.Body = strings.TrimSpace(text)
	if c.Body == "" {
		return c, fmt.Errorf("%s: the command has no prompt after its front matter", path)
	}
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	return c, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if len(l) > 60 {
		l = l[:57] + "…"
	}
	return l
}

var positional = lazyregexp.New(`\$([1-9])`)

// Expand is the command's prompt for the arguments typed after /NAME.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := splitArgs(args)
	out := strings.NewReplacer("$ARGUMENTS", args, "{{args}}", args).Replace(c.Body)
	out = positional.ReplaceAllStringFunc(out, func(m string) string {
		i, _ := strconv.Atoi(m[1:])
		if i <= len(words) {
			return words[i-1]
		}
		return ""
	})
	if args != "" && !strings.Contains(c.Body, "$ARGUMENTS") && !strings.Contains(c.Body, "{{args}}") && !positional.MatchString(c.Body) {
		// Arguments the file has no place for are not dropped.
		out += "\n\n" + args
	}
	return out
}

// splitArgs splits at spaces; "double" or 'single' quotes hold a word
// with spaces.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
