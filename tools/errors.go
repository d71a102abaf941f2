package tools

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, for errors.Is.
var (
	// ErrUnknownTool: the call names no registered tool or alias.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrInvalidArguments: the arguments do not fit the tool's schema.
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrDuplicateTool: Register was given a name already taken.
	ErrDuplicateTool = errors.New("duplicate tool name")
	// ErrInvalidName: a tool or namespace name breaks the naming rules.
	ErrInvalidName = errors.New("invalid tool name")
	// ErrTimeout: the call ran past its timeout.
	ErrTimeout = errors.New("tool call timed out")
	// ErrPanic: the tool panicked; the panic was recovered.
	ErrPanic = errors.New("tool panicked")
)

// UnknownToolError says a call named no tool, and lists what exists so the
// model can correct itself.
type UnknownToolError struct {
	Name      string
	Available []string
	Suggest   string // closest known name, if any
}

func (e *UnknownToolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown tool %q.", e.Name)
	if e.Suggest != "" {
		fmt.Fprintf(&b, " Did you mean %q?", e.Suggest)
	}
	fmt.Fprintf(&b, " Available tools: %s.", strings.Join(e.Available, ", "))
	return b.String()
}

func (e *UnknownToolError) Unwrap() error { return ErrUnknownTool }

// ArgumentError lists everything wrong with a call's arguments and shows
// the expected shape. Its message is written for the model to read.
type ArgumentError struct {
	Tool     string
	Problems []string // one per field, "missing required "path" (string)"
	Shape    string   // the expected arguments, one line per field
}

func (e *ArgumentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid arguments for %s:\n", e.Tool)
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "- %s\n", p)
	}
	if e.Shape != "" {
		fmt.Fprintf(&b, "Expected arguments:\n%s", e.Shape)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (e *ArgumentError) Unwrap() error { return ErrInvalidArguments }
