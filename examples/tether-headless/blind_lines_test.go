package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// blindLine is one case of testdata/blind_lines.jsonl: an input line (given
// or generated), the text its error event must mention ("" for a line that
// gets no answer), and where the case comes from.
type blindLine struct {
	Source string `json:"source"`
	Input  string `json:"input"`
	Gen    string `json:"gen"`
	Want   string `json:"want"`
}

// TestBlindBadLines sends every case of the blind batch in one session,
// one line each, and checks that each line gets exactly its answer and
// that the gateway reads on to the end and exits 0. A served line is a
// cancel with nothing running, whose answer is an error event too, so
// every answer is visible without a model.
func TestBlindBadLines(t *testing.T) {
	f, err := os.Open("testdata/blind_lines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []blindLine
	var input bytes.Buffer
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c blindLine
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("testdata/blind_lines.jsonl: %v", err)
		}
		switch c.Gen {
		case "":
		case "deep":
			c.Input = strings.Repeat("[", 100000)
		case "oversize":
			c.Input = `{"type":"cancel","text":"` + strings.Repeat("x", maxLine) + `"}`
		case "long":
			c.Input = `{"type":"cancel","text":"` + strings.Repeat("x", 1<<20) + `"}`
		default:
			t.Fatalf("unknown generator %q", c.Gen)
		}
		cases = append(cases, c)
		input.WriteString(c.Input + "\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "-workspace", project(t), "-model", "script:"+filepath.Join("testdata", "plan.jsonl"))
	cmd.Stdin = &input
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("headless exited with %v; want 0 after answering every line\nstderr tail: %s", err, tail(stderr.String(), 400))
	}
	byLine := map[int][]string{}
	for _, e := range ofType(parseEvents(t, out), "error") {
		n, _ := e["line"].(float64)
		byLine[int(n)] = append(byLine[int(n)], e.str("error"))
	}
	right := 0
	for i, c := range cases {
		got := byLine[i+1]
		switch {
		case c.Want == "" && len(got) == 0,
			c.Want != "" && len(got) == 1 && strings.Contains(got[0], c.Want):
			right++
		default:
			t.Errorf("line %d (%s): answers %q; want one mentioning %q", i+1, c.Source, got, c.Want)
		}
	}
	t.Logf("blind gateway batch: %d/%d right", right, len(cases))
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
