package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm/llmtest"
)

// TestVerboseAndWireLog: -wire-log records the HTTP exchange with the
// model server, -tool-calling envelope asks for action envelopes, and
// /verbose turns on the per-iteration debug record in the -log file (and
// off again), with a model whose envelope names a tool that does not
// exist, the case /verbose is for.
func TestVerboseAndWireLog(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	envelope := "```yips-agent\n" + `{"actions":[{"type":"tool","id":"t1","name":"read_file","arguments":{"path":"a.txt"}},` +
		`{"type":"tool","id":"t2","name":"delete_everything","arguments":{}}]}` + "\n```"
	first, _ := json.Marshal(map[string]string{"content": envelope})
	script, err := llmtest.ParseScript(strings.NewReader(string(first) + "\n" + `{"content":"a.txt says alpha. [TASK_COMPLETE]"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewFakeOllama(script)
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", srv.URL)
	logs := t.TempDir()
	logFile, wireFile := filepath.Join(logs, "coder.log"), filepath.Join(logs, "wire.jsonl")

	r, w, _ := os.Pipe()
	var out syncBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"-model", "ollama:fake", "-db", ":memory:", "-log", logFile, "-wire-log", wireFile, "-tool-calling", "envelope"}, r, &out, &out)
	}()
	waitOut(t, &out, "agent ›")
	fmt.Fprintln(w, "/verbose")
	waitOut(t, &out, "verbose on")
	fmt.Fprintln(w, "what does a.txt say?")
	waitOut(t, &out, "a.txt says alpha")
	fmt.Fprintln(w, "/verbose")
	waitOut(t, &out, "verbose off")
	fmt.Fprintln(w, "/quit")
	if code := <-done; code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}

	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"agent: model response", "yips-agent", "delete_everything", "calling=envelope"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the -log file lacks %q with /verbose on:\n%s", want, log)
		}
	}
	wire, err := os.ReadFile(wireFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wire), "/api/chat") || !strings.Contains(string(wire), "yips-agent") {
		t.Errorf("the wire log lacks the chat exchange:\n%.2000s", wire)
	}
}
