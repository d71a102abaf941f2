package acp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// blindCase is one case of testdata/blind_protocol.txt.
type blindCase struct {
	name, source, setup string
	send                []string
	want                []string // "ID error CODE", "ID result", "ID stop REASON"
	check               []string // "ID FIELD VALUE": a field of a result
}

func readBlindCases(t *testing.T, path string) []blindCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []blindCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s: line %q has no key", path, line)
		}
		val = strings.TrimPrefix(val, " ")
		if key == "case" {
			cases = append(cases, blindCase{name: val})
			continue
		}
		if len(cases) == 0 {
			t.Fatalf("%s: %q before the first case", path, line)
		}
		c := &cases[len(cases)-1]
		switch key {
		case "source":
			c.source = val
		case "setup":
			c.setup = val
		case "send":
			c.send = append(c.send, val)
		case "want":
			c.want = append(c.want, val)
		case "check":
			c.check = append(c.check, val)
		default:
			t.Fatalf("%s: unknown key %q", path, key)
		}
	}
	return cases
}

// TestBlindProtocolBatch runs the blind batch of malformed and
// out-of-order messages; every case must pass, and the score is logged.
func TestBlindProtocolBatch(t *testing.T) {
	cases := readBlindCases(t, "testdata/blind_protocol.txt")
	passed := 0
	for _, c := range cases {
		ok := t.Run(c.name, func(t *testing.T) {
			if c.source == "" || c.setup == "" {
				t.Fatalf("case %q needs a source and a setup", c.name)
			}
			runBlindCase(t, c)
		})
		if ok {
			passed++
		}
	}
	t.Logf("blind batch: %d of %d cases behave as expected", passed, len(cases))
}

func runBlindCase(t *testing.T, c blindCase) {
	h := newHarness(t, slowScript, 4096)
	sid := ""
	switch c.setup {
	case "none":
	case "init":
		h.call(1000, "initialize", map[string]any{"protocolVersion": 1})
	case "session":
		sid = h.session()
	default:
		t.Fatalf("unknown setup %q", c.setup)
	}
	for _, s := range c.send {
		s = strings.ReplaceAll(s, "$SID", sid)
		s = strings.ReplaceAll(s, "$CWD", h.dir)
		s = strings.ReplaceAll(s, "$PAD", strings.Repeat("x", 8192))
		s = strings.ReplaceAll(s, `\r`, "\r")
		h.send(s)
	}
	pending := map[string]string{} // id → what is wanted
	for _, w := range c.want {
		id, rest, _ := strings.Cut(w, " ")
		pending[id] = rest
	}
	results := map[string]map[string]any{}
	var unexpected []string
	deadline := time.Now().Add(60 * time.Second)
	for len(pending) > 0 && time.Now().Before(deadline) {
		m, _ := h.waitFor("a response", func(m map[string]any) bool { _, isReq := m["method"]; return !isReq })
		b, _ := json.Marshal(m["id"])
		id := string(b)
		want, listed := pending[id]
		if !listed {
			unexpected = append(unexpected, fmt.Sprint(m))
			continue
		}
		delete(pending, id)
		if got := describe(m); got != want {
			t.Errorf("id %s: got %s, want %s (%v)", id, got, want, m)
		}
		if r, ok := m["result"].(map[string]any); ok {
			results[id] = r
		}
	}
	for _, ch := range c.check {
		f := strings.Fields(ch)
		if len(f) != 3 {
			t.Fatalf("check %q: want ID FIELD VALUE", ch)
		}
		if got := fmt.Sprint(results[f[0]][f[1]]); got != f[2] {
			t.Errorf("id %s: %s = %s, want %s", f[0], f[1], got, f[2])
		}
	}
	// The agent is still there, and said nothing else in between.
	h.send(`{"jsonrpc":"2.0","id":"alive","method":"initialize","params":{"protocolVersion":1}}`)
	_, seen := h.waitFor("the answer to a later initialize", idIs(`"alive"`))
	for _, m := range seen {
		if _, isReq := m["method"]; !isReq {
			unexpected = append(unexpected, fmt.Sprint(m))
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("responses not wanted: %v", unexpected)
	}
}

// describe renders a response as a want line renders it.
func describe(m map[string]any) string {
	if e, ok := m["error"].(map[string]any); ok {
		return fmt.Sprintf("error %v", e["code"])
	}
	if r, ok := m["result"].(map[string]any); ok && r["stopReason"] != nil {
		return fmt.Sprintf("stop %v", r["stopReason"])
	}
	return "result"
}
