package llmtest_test

import (
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
)

func env(kv map[string]string) llmtest.Option {
	return llmtest.WithGetenv(func(k string) string { return kv[k] })
}

func TestOpenEndToEnd(t *testing.T) {
	srv := llmtest.NewFakeOpenAI(llmtest.Script{Turns: []llmtest.Turn{{Content: "hello"}}})
	defer srv.Close()
	srv.APIKey = "sk-local"
	m, err := llmtest.Open("openai:fake", env(map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "sk-local"}),
		llmtest.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	if err != nil || r.Message.Content != "hello" {
		t.Fatalf("%+v %v", r, err)
	}
}
