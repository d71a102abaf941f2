package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
)

// TestWireLogRedactsKeys drives both backends against fake servers that
// require a key, and checks that the wire log records every request and
// response with ids and latencies but never the key, raw or encoded.
func TestWireLogRedactsKeys(t *testing.T) {
	const key = "sk-fake-7f3a9c1e2b4d"
	script := llmtest.Script{Turns: []llmtest.Turn{{Content: "hello there"}, {Content: "echo " + key}}}
	tests := []struct {
		name, model, path string
		fake              func(llmtest.Script) *llmtest.FakeServer
		env               func(url string) map[string]string
	}{
		{"ollama", "ollama:qwen3:8b", "/api/chat", llmtest.NewFakeOllama,
			func(u string) map[string]string { return map[string]string{"OLLAMA_HOST": u, "OLLAMA_API_KEY": key} }},
		{"openai", "openai:gpt-test", "/v1/chat/completions", llmtest.NewFakeOpenAI,
			func(u string) map[string]string {
				return map[string]string{"OPENAI_BASE_URL": u + "/v1", "OPENAI_API_KEY": key}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.fake(script)
			defer srv.Close()
			srv.APIKey = key // a missing or wrong key is a 401
			var wire bytes.Buffer
			env := tt.env(srv.URL)
			m, err := llmtest.Open(tt.model, llmtest.WithGetenv(func(k string) string { return env[k] }),
				llmtest.WithHTTPClient(srv.Client()), llmtest.WithWireLog(&wire))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"hello there", "echo " + key} {
				// The key also goes into the prompt: a body echoing it must be redacted too.
				r, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "my key is " + key}}}))
				if err != nil || r.Message.Content != want {
					t.Fatalf("chat = %q, %v; want %q", r.Message.Content, err, want)
				}
			}
			log := wire.String()
			for _, secret := range []string{key, base64.StdEncoding.EncodeToString([]byte(key))} {
				if strings.Contains(log, secret) {
					t.Fatalf("wire log contains the key %q:\n%s", secret, log)
				}
			}
			var events []string
			ids := map[string]int{}
			shows := map[string]bool{}
			sc := bufio.NewScanner(&wire)
			sc.Buffer(nil, 4<<20)
			for sc.Scan() {
				var line struct {
					Time    string              `json:"time"`
					ID      string              `json:"id"`
					Event   string              `json:"event"`
					URL     string              `json:"url"`
					Status  int                 `json:"status"`
					Header  map[string][]string `json:"header"`
					Body    json.RawMessage     `json:"body"`
					Text    string              `json:"body_text"`
					Latency float64             `json:"latency_ms"`
				}
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("bad line %q: %v", sc.Text(), err)
				}
				if line.Time == "" || line.ID == "" {
					t.Errorf("line without time or id: %s", sc.Text())
				}
				if strings.HasSuffix(line.URL, "/api/show") {
					shows[line.ID] = true // the window is read once before the first chat
				}
				if shows[line.ID] {
					continue
				}
				ids[line.ID]++
				events = append(events, line.Event)
				switch line.Event {
				case "request":
					if !strings.HasSuffix(line.URL, tt.path) || line.Header["Authorization"][0] != "[REDACTED]" || !strings.Contains(string(line.Body), "[REDACTED]") {
						t.Errorf("request line: %s", sc.Text())
					}
				case "response":
					if line.Status != 200 || line.Latency <= 0 || line.Text == "" {
						t.Errorf("response line: %s", sc.Text())
					}
				}
			}
			if strings.Join(events, ",") != "request,response,request,response" {
				t.Errorf("events = %v", events)
			}
			for id, n := range ids {
				if n != 2 {
					t.Errorf("id %s on %d lines, want 2", id, n)
				}
			}
		})
	}
}
