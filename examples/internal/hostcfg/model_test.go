package hostcfg

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/settings"
)

// TestModelOptionsReachTheServer: every field of modelOptions is in the
// request the server receives, on both network backends; a request with
// a temperature of its own (a mode's) keeps it; and the model still
// reports its capabilities through the wrapper.
func TestModelOptionsReachTheServer(t *testing.T) {
	temp := 0.25
	for _, tc := range []struct {
		scheme string
		start  func(llmtest.Script) *llmtest.FakeServer
		env    string
		// temperature and context window as the server got them.
		read func(t *testing.T, body json.RawMessage) (temperature *float64, numCtx int)
	}{
		{"ollama", llmtest.NewFakeOllama, "OLLAMA_HOST", func(t *testing.T, body json.RawMessage) (*float64, int) {
			var r struct {
				Options struct {
					Temperature *float64 `json:"temperature"`
					NumCtx      int      `json:"num_ctx"`
				} `json:"options"`
			}
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			return r.Options.Temperature, r.Options.NumCtx
		}},
		{"openai", llmtest.NewFakeOpenAI, "OPENAI_BASE_URL", func(t *testing.T, body json.RawMessage) (*float64, int) {
			var r struct {
				Temperature *float64 `json:"temperature"`
			}
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			// The chat-completions request has no window; the backend
			// budgets with it (checked through Capabilities below).
			return r.Temperature, 0
		}},
	} {
		t.Run(tc.scheme, func(t *testing.T) {
			srv := tc.start(llmtest.Script{Turns: []llmtest.Turn{{Content: "one"}, {Content: "two"}, {Content: "three"}}})
			defer srv.Close()
			url := srv.URL
			if tc.scheme == "openai" {
				url += "/v1"
			}
			getenv := func(k string) string {
				if k == tc.env {
					return url
				}
				return ""
			}
			s := settings.Settings{Model: tc.scheme + ":m", ModelOptions: settings.ModelOptions{NumCtx: 8192, Temperature: &temp}}
			m, err := OpenModel(s, modelstr.WithGetenv(getenv))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			chat := func(req llm.Request) {
				t.Helper()
				req.Messages = []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
				if _, err := llm.Collect(m.Chat(ctx, req)); err != nil {
					t.Fatal(err)
				}
			}
			chat(llm.Request{})
			own := 1.5
			chat(llm.Request{Temperature: &own})
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			got, numCtx := tc.read(t, reqs[0])
			if got == nil || *got != temp {
				t.Errorf("request without its own temperature: server got %v, want %v\n%s", got, temp, reqs[0])
			}
			if tc.scheme == "ollama" && numCtx != 8192 {
				t.Errorf("num_ctx %d, want 8192\n%s", numCtx, reqs[0])
			}
			if got, _ := tc.read(t, reqs[1]); got == nil || *got != own {
				t.Errorf("request with temperature 1.5: server got %v", got)
			}
			caps, err := llm.CapabilitiesOf(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if !caps.Tools || caps.ContextLength == 0 {
				t.Errorf("capabilities through the wrapper: %+v", caps)
			}
		})
	}
}

// TestNoTemperatureSendsNone: without the setting, the server's default
// applies: the request carries no temperature.
func TestNoTemperatureSendsNone(t *testing.T) {
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: "one"}}})
	defer srv.Close()
	m, err := OpenModel(settings.Settings{Model: "ollama:m"}, modelstr.WithGetenv(func(k string) string {
		if k == "OLLAMA_HOST" {
			return srv.URL
		}
		return ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Collect(m.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Options map[string]any `json:"options"`
	}
	json.Unmarshal(srv.Requests()[0], &r)
	if _, ok := r.Options["temperature"]; ok {
		t.Errorf("temperature sent without the setting: %v", r.Options)
	}
}
