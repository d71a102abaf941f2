package main

import (
	"slices"
	"strings"
)

// The input box's own editing (multi-line, paste, cursor) is the textarea
// bubble's; these add history and completion of /commands and @files.

// browseHistory recalls earlier inputs with ↑/↓ when the cursor is on
// the input's first (↑) or last (↓) line; it reports whether it did.
func (t *tui) browseHistory(dir string) bool {
	if len(t.complete) > 0 && dir == "down" {
		return false
	}
	switch {
	case dir == "up" && t.in.Line() == 0 && t.histPos > 0:
		if t.histPos == len(t.history) {
			t.draft = t.in.Value()
		}
		t.histPos--
		t.in.SetValue(t.history[t.histPos])
		return true
	case dir == "down" && t.in.Line() == t.in.LineCount()-1 && t.histPos < len(t.history):
		t.histPos++
		if t.histPos == len(t.history) {
			t.in.SetValue(t.draft)
		} else {
			t.in.SetValue(t.history[t.histPos])
		}
		return true
	}
	return false
}

// currentWord is the word being typed at the end of the input.
func (t *tui) currentWord() string {
	v := t.in.Value()
	if i := strings.LastIndexAny(v, " \n\t"); i >= 0 {
		return v[i+1:]
	}
	return v
}

// updateCompletions lists what Tab would complete: a command while the
// input is a lone /word, a workspace file after @.
func (t *tui) updateCompletions() {
	t.complete = nil
	v, w := t.in.Value(), t.currentWord()
	switch {
	case strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n"):
		for _, c := range commands {
			if strings.HasPrefix(c.name, v) {
				t.complete = append(t.complete, c.name)
			}
		}
		for _, c := range t.app.custom {
			if strings.HasPrefix("/"+c.Name, v) && !slices.Contains(t.complete, "/"+c.Name) {
				t.complete = append(t.complete, "/"+c.Name)
			}
		}
	case strings.HasPrefix(w, "@") && len(w) > 1:
		q := strings.ToLower(w[1:])
		for _, f := range t.app.workspaceFiles() {
			if strings.Contains(strings.ToLower(f), q) {
				t.complete = append(t.complete, "@"+f)
				if len(t.complete) == 8 {
					break
				}
			}
		}
		// Closest first: the shortest path that starts with what was typed.
		slices.SortStableFunc(t.complete, func(x, y string) int {
			px, py := strings.HasPrefix(strings.ToLower(x[1:]), q), strings.HasPrefix(strings.ToLower(y[1:]), q)
			if px != py {
				if px {
					return -1
				}
				return 1
			}
			return len(x) - len(y)
		})
	}
}

// completeWord replaces the word being typed by the first completion.
func (t *tui) completeWord() {
	t.updateCompletions()
	if len(t.complete) == 0 {
		return
	}
	v, w := t.in.Value(), t.currentWord()
	t.in.SetValue(v[:len(v)-len(w)] + t.complete[0] + " ")
	t.complete = nil
}
