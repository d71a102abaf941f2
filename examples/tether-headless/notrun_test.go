package main

import (
	"strings"
	"testing"
)

// A call the parser judged shown rather than made, and a call it could
// not read, both reach the host as notices and the model as a message: the
// run goes on to the next response instead of ending with raw markup as
// the answer, and the call made in the same reply (between two sentences
// on one line) runs.
func TestCallsNotRunAreReported(t *testing.T) {
	ws := project(t)
	evs := session(t, ws, "not_run.jsonl", `{"type":"prompt","text":"Explain greet.go","mode":"agent"}`)
	kinds := map[string]string{}
	for _, n := range ofType(evs, "notice") {
		kinds[n.str("kind")] = n.str("text")
	}
	if text, ok := kinds["call_not_run"]; !ok || !strings.Contains(text, "inline code") || !strings.Contains(text, "list_dir") {
		t.Errorf("no call_not_run notice naming the shown call and why: %q", text)
	}
	if text, ok := kinds["parse_error"]; !ok || !strings.Contains(text, "could not be parsed") {
		t.Errorf("no parse_error notice for the unreadable call: %q", text)
	}
	var ran []string
	for _, a := range finalActions(evs) {
		ran = append(ran, a.str("tool")+":"+a.str("status"))
	}
	if len(ran) != 1 || ran[0] != "read_file:success" {
		t.Errorf("actions = %v, want the one read_file call made between two sentences", ran)
	}
	fin := ofType(evs, "run_finished")
	if len(fin) != 1 || fin[0].str("stop_reason") != "completed" || fin[0]["iterations"] != float64(3) {
		t.Fatalf("run_finished = %v, want completed after 3 iterations (each reply with a call not run goes back to the model)", fin)
	}
	msgs := ofType(evs, "final_message")
	if len(msgs) != 1 || !strings.Contains(msgs[0].str("text"), "defines Greet") {
		t.Errorf("final_message = %v, want the third reply", msgs)
	}
}
