package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm/llmtest"
)

// TestEnvelopeModeAndWireLog: -tool-calling envelope makes the web agent
// read action envelopes and stage writes (a legacy write_file is
// translated, nothing is written), and -wire-log records the exchange
// with the model server.
func TestEnvelopeModeAndWireLog(t *testing.T) {
	envelope := "```yips-agent\n" + `{"actions":[{"type":"tool","id":"t1","name":"write_file","arguments":{"path":"notes.txt","content":"hello\n"}}]}` + "\n```"
	first, _ := json.Marshal(map[string]string{"content": envelope})
	script, err := llmtest.ParseScript(strings.NewReader(string(first) + "\n" + `{"content":"Staged. [TASK_COMPLETE]"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewFakeOllama(script)
	defer model.Close()
	t.Setenv("OLLAMA_HOST", model.URL)
	wireFile := filepath.Join(t.TempDir(), "wire.jsonl")
	ts := startServer(t, "", nil, func(o *options) {
		o.model, o.set.ToolCalling, o.wireLog = "ollama:fake", "envelope", wireFile
	})
	sess := ts.newSession(t)
	ts.runTurn(t, sess, "write notes")
	if _, err := os.Stat(filepath.Join(ts.dir, "notes.txt")); err == nil {
		t.Error("notes.txt was written; in envelope mode a write_file is only staged")
	}
	wire, err := os.ReadFile(wireFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/api/chat", "yips-agent", `legacyTranslated\":true`} {
		if !strings.Contains(string(wire), want) {
			t.Errorf("the wire log lacks %q:\n%.3000s", want, wire)
		}
	}
}
