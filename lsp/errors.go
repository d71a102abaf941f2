package lsp

import (
	"errors"
	"fmt"
)

// StartError: a language server is installed but did not start or
// initialise (a rustup proxy without the component, a crash, a missing
// runtime). Stderr holds the end of what it printed.
type StartError struct {
	Server string
	Err    error
	Stderr string
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("lsp: %s failed to start: %v", e.Server, e.Err)
	if e.Stderr != "" {
		msg += "\nserver stderr:\n" + e.Stderr
	}
	return msg
}

func (e *StartError) Unwrap() error { return e.Err }

// ErrNoServer: no language server is configured and installed for a file.
var ErrNoServer = errors.New("lsp: no language server for this file type")

// NoServerError says which servers were looked for.
type NoServerError struct {
	Ext   string   // the file's extension, "" when unknown
	Tried []string // commands looked for on PATH
	Cause error
}

func (e *NoServerError) Error() string {
	msg := "no language server for this file type"
	if e.Ext != "" {
		msg = fmt.Sprintf("no language server for %s files", e.Ext)
	}
	if len(e.Tried) > 0 {
		msg += fmt.Sprintf(" (looked for %v on PATH)", e.Tried)
	}
	return msg
}

func (e *NoServerError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrNoServer, e.Cause}
	}
	return []error{ErrNoServer}
}
