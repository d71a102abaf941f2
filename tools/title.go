package tools

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/tetherdev/tether/internal/textcut"
)

// ActionKind says what kind of work a call is, for a UI that groups a
// batch of calls under one heading ("Reading files", "Searching
// codebase"). The empty kind is any other work.
type ActionKind string

const (
	KindRead    ActionKind = "read"    // reads file content
	KindEdit    ActionKind = "edit"    // changes or stages file content
	KindCommand ActionKind = "command" // runs a command
	KindSearch  ActionKind = "search"  // searches text or symbols
	KindAnalyze ActionKind = "analyze" // asks a language server about code
	KindInspect ActionKind = "inspect" // lists files or a file's structure
)

// Title is how a UI names one prepared call, in the three grammatical
// forms it needs: while it runs ("Reading main.go"), once it succeeded
// ("Read main.go"), and as an order for any other outcome, which the UI
// follows with the status ("Read .env (denied)").
type Title struct {
	Running string `json:"running"`
	Done    string `json:"done"`
	Order   string `json:"order"`
	// Detail is an optional line under the title before the call has a
	// result (the line range asked for, the command's directory).
	Detail string     `json:"detail,omitempty"`
	Kind   ActionKind `json:"kind,omitempty"`
}

// Titler is implemented by tools that title their own calls. call is the
// prepared call (canonical argument names) and eff what it declared.
// Returning the zero Title leaves the title to [DefaultTitle].
type Titler interface {
	Title(call Call, eff Effects) Title
}

// Verb builds a Title from a verb's three forms and the thing acted on:
// Verb("Reading ", "Read ", "Read ", "main.go", KindRead).
func Verb(running, done, order, object string, kind ActionKind) Title {
	return Title{Running: running + object, Done: done + object, Order: order + object, Kind: kind}
}

// WithTitle makes a tool built with New title its own calls.
func WithTitle(title func(call Call, eff Effects) Title) Option {
	return func(s *Spec) { s.titles = title }
}

// WithPathTitle titles every call by the base name of the first path it
// declares writing, else reading: WithPathTitle("Reading ", "Read ",
// "Read ", KindRead) gives "Reading main.go".
func WithPathTitle(running, done, order string, kind ActionKind) Option {
	return WithTitle(func(_ Call, eff Effects) Title {
		return Verb(running, done, order, path.Base(filepath(EffectPath(eff))), kind)
	})
}

// EffectPath is the path a call is about: the first it declares writing,
// else the first it declares reading, else empty.
func EffectPath(eff Effects) string {
	switch {
	case len(eff.Writes) > 0:
		return eff.Writes[0]
	case len(eff.Reads) > 0:
		return eff.Reads[0]
	}
	return ""
}

func filepath(p string) string { return strings.ReplaceAll(p, "\\", "/") }

// DefaultTitle is the title of a call whose tool gives none: "Running
// name", with " on file" for a call that declares a path.
func DefaultTitle(name string, eff Effects) Title {
	obj := name
	if p := EffectPath(eff); p != "" {
		obj += " on " + path.Base(filepath(p))
	}
	t := Verb("Running ", "Ran ", "Run ", obj, "")
	if eff.Command != "" {
		t.Kind = KindCommand
	} else if len(eff.Writes) > 0 {
		t.Kind = KindEdit
	}
	return t
}

// Title returns the title of a prepared call: its tool's own (see
// [Titler]), or [DefaultTitle].
func (r *Registry) Title(call Call, eff Effects) Title {
	r.mu.RLock()
	e := r.entries[call.Name]
	r.mu.RUnlock()
	if e != nil {
		t := e.tool
		if rn, ok := t.(renamed); ok {
			t = rn.Tool
		}
		if tt, ok := t.(Titler); ok {
			if title := tt.Title(call, eff); title.Running != "" {
				if title.Done == "" {
					title.Done = title.Running
				}
				if title.Order == "" {
					title.Order = title.Done
				}
				return title
			}
		}
	}
	return DefaultTitle(call.Name, eff)
}

// Title calls the tool's WithTitle function; the zero Title without one.
func (t *typed[Args]) Title(call Call, eff Effects) Title {
	if t.spec.titles == nil {
		return Title{}
	}
	return t.spec.titles(call, eff)
}

// Title calls f.Titles; the zero Title when it is nil.
func (f Func) Title(call Call, eff Effects) Title {
	if f.Titles == nil {
		return Title{}
	}
	return f.Titles(call, eff)
}

// WithKind gives a tool's calls DefaultTitle with kind, for a tool whose
// name says enough but whose calls a UI should group (a language-server
// query is KindAnalyze).
func WithKind(kind ActionKind) Option {
	return WithTitle(func(call Call, eff Effects) Title {
		t := DefaultTitle(call.Name, eff)
		t.Kind = kind
		return t
	})
}

// StringArg returns the string argument key of a prepared call, or "".
func (c Call) StringArg(key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(c.Arguments, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}

// Shorten returns s's first line (trimmed), cut to at most n bytes at a
// rune boundary with "…" when longer, for a title.
func Shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return textcut.Excerpt(strings.TrimSpace(s), n)
}
