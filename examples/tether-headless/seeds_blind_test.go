package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// blindCase is one expectation written from seed 004's protocol text
// (testdata/seed004_blind.json) before the code was changed to meet it.
type blindCase struct {
	Name       string            `json:"name"`
	Source     string            `json:"source"`
	Files      map[string]string `json:"files"`
	Turns      []string          `json:"turns"`
	RepeatLast bool              `json:"repeat_last"`
	Expect     struct {
		Files           map[string]string `json:"files"`
		Absent          []string          `json:"absent"`
		Actions         [][2]string       `json:"actions"`
		RequestContains []string          `json:"request_contains"`
		RequestLacks    []string          `json:"request_lacks"`
		NeverRan        []string          `json:"never_ran"`
		NeverSucceeded  []string          `json:"never_succeeded"`
		Iterations      int               `json:"iterations"`
		StopReason      string            `json:"stop_reason"`
		FinalContains   string            `json:"final_contains"`
		TextContains    string            `json:"text_contains"`
	} `json:"expect"`
}

// TestBlindSeed004 runs each case as a gateway session in envelope mode:
// the real binary, -tool-calling envelope, no human (confirm-level
// actions denied), a model that follows the protocol.
func TestBlindSeed004(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "seed004_blind.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []blindCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			runBlindCase(t, c)
		})
	}
}

func runBlindCase(t *testing.T, c blindCase) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range c.Files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := newProtocolModel(t, c.Turns, c.RepeatLast)
	cmd := exec.Command(binary, "-workspace", ws, "-model", "ollama:fake", "-tool-calling", "envelope", "-sandbox", "off")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+m.URL)
	cmd.Stdin = strings.NewReader(`{"type":"prompt","text":"Do the task."}` + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("headless: %v\nstderr:\n%s", err, stderr.String())
	}
	evs := parseEvents(t, out)
	t.Logf("source: %s", c.Source)
	x := c.Expect
	for name, want := range x.Files {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", name, b, err, want)
		}
	}
	for _, name := range x.Absent {
		if _, err := os.Stat(filepath.Join(ws, name)); err == nil {
			t.Errorf("%s exists; it must not have been written", name)
		}
	}
	acts := finalActions(evs)
	if x.Actions != nil {
		var got [][2]string
		for _, a := range acts {
			got = append(got, [2]string{a.str("tool"), a.str("status")})
		}
		if !equalPairs(got, x.Actions) {
			t.Errorf("final actions = %v, want %v", got, x.Actions)
		}
	}
	for _, a := range acts {
		for _, name := range x.NeverRan {
			if a.str("tool") == name {
				t.Errorf("%s ran (%s); it must not have", name, a.str("status"))
			}
		}
		for _, name := range x.NeverSucceeded {
			if a.str("tool") == name && a.str("status") == "success" {
				t.Errorf("%s succeeded; it must not have", name)
			}
		}
	}
	req := m.requests()
	for _, s := range x.RequestContains {
		if !strings.Contains(req, s) {
			t.Errorf("the model was never sent %q; its last messages:\n%s", s, tail(req, 1500))
		}
	}
	for _, s := range x.RequestLacks {
		if strings.Contains(req, s) {
			t.Errorf("the model was sent %q; it must not have been", s)
		}
	}
	fin := ofType(evs, "run_finished")
	if len(fin) != 1 {
		t.Fatalf("want one run_finished, got %d", len(fin))
	}
	if x.Iterations != 0 {
		if n, _ := fin[0]["iterations"].(float64); int(n) != x.Iterations {
			t.Errorf("iterations = %v, want %d", fin[0]["iterations"], x.Iterations)
		}
	}
	if x.StopReason != "" && fin[0].str("stop_reason") != x.StopReason {
		t.Errorf("stop_reason = %q, want %q", fin[0].str("stop_reason"), x.StopReason)
	}
	if x.FinalContains != "" {
		msgs := ofType(evs, "final_message")
		if len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1].str("text"), x.FinalContains) {
			t.Errorf("final message %v does not contain %q", msgs, x.FinalContains)
		}
	}
	if x.TextContains != "" {
		var text strings.Builder
		for _, d := range ofType(evs, "text_delta") {
			text.WriteString(d.str("text"))
		}
		if !strings.Contains(text.String(), x.TextContains) {
			t.Errorf("text shown = %q, want it to contain %q", text.String(), x.TextContains)
		}
	}
}

func equalPairs(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
