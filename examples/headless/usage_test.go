package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// -h teaches the protocol: it exits 0 and shows every request type the
// gateway accepts, every event of its own, and the directories outside the
// workspace that commands may write.
func TestHelpDocumentsEveryRequest(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"-h"}, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Fatalf("-h: exit %d, want 0", code)
	}
	help := stderr.String()
	for _, want := range []string{
		`{"type":"prompt"`, `"attach":`, `{"type":"cancel"}`, `{"type":"undo"`, `{"type":"approve"`, `{"type":"apply"`,
		`allow_session`, `"undo_finished"`, `"change_applied"`, `"error"`,
		"cache directory", "Exit status", "Examples:", "-workspace",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("-h does not mention %s", want)
		}
	}
	if d := cacheDir(); d != "" && !strings.Contains(help, d) {
		t.Errorf("-h does not name the cache directory %s", d)
	}
}

// Every request type the help documents is one read accepts: the error for
// an unknown type lists exactly those types.
func TestUnknownRequestListsTheDocumentedTypes(t *testing.T) {
	evs := session(t, project(t), "approve.jsonl", `{"type":"bogus"}`)
	errs := ofType(evs, "error")
	if len(errs) != 1 {
		t.Fatalf("error events = %v", errs)
	}
	var stderr bytes.Buffer
	run(t.Context(), []string{"-h"}, strings.NewReader(""), io.Discard, &stderr)
	msg := errs[0].str("error")
	_, list, _ := strings.Cut(msg, "want ")
	seen := 0
	for typ := range strings.FieldsFuncSeq(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if typ == "or" {
			continue
		}
		seen++
		if !strings.Contains(stderr.String(), `{"type":"`+typ+`"`) {
			t.Errorf("request type %q is accepted but -h does not document it", typ)
		}
	}
	if seen < 5 {
		t.Errorf("the unknown-type error lists %d types, want prompt, cancel, undo, apply and approve: %q", seen, msg)
	}
}
