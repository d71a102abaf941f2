package main

import (
	"io"
	"strings"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
)

// help runs -h and returns what it printed, checking it mentions want.
func help(t *testing.T, want ...string) string {
	t.Helper()
	_, text := clitest.Help(t, func(stdout, stderr io.Writer) int {
		return run(t.Context(), []string{"-h"}, strings.NewReader(""), stdout, stderr)
	}, want...)
	return text
}

// -h teaches the protocol: it exits 0 and shows every request type the
// gateway accepts, every event of its own, and the directories outside the
// workspace that commands may write.
func TestHelpDocumentsEveryRequest(t *testing.T) {
	want := []string{
		`{"type":"prompt"`, `"attach":`, `{"type":"cancel"}`, `{"type":"undo"`, `{"type":"approve"`, `{"type":"apply"`,
		`allow_session`, `"undo_finished"`, `"change_applied"`, `"error"`,
		"cache directory", "Exit status", "Examples:", "-workspace",
	}
	if d := cacheDir(); d != "" {
		want = append(want, d)
	}
	help(t, want...)
}

// Every request type read accepts is documented by -h: the error for an
// unknown type lists the accepted types, and -h shows each one.
func TestUnknownRequestListsTheDocumentedTypes(t *testing.T) {
	evs := session(t, project(t), "approve.jsonl", `{"type":"bogus"}`)
	errs := ofType(evs, "error")
	if len(errs) != 1 {
		t.Fatalf("error events = %v", errs)
	}
	msg := errs[0].str("error")
	_, list, _ := strings.Cut(msg, "want ")
	var documented []string
	for typ := range strings.FieldsFuncSeq(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if typ != "or" {
			documented = append(documented, `{"type":"`+typ+`"`)
		}
	}
	if len(documented) < 5 {
		t.Errorf("the unknown-type error lists %d types, want prompt, cancel, undo, apply and approve: %q", len(documented), msg)
	}
	help(t, documented...)
}
