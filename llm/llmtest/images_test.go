package llmtest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/tetherdev/tether/llm"
)

// TestBackendsToolImages: an image a tool returned reaches the model in
// each backend's own form: Ollama's images on the tool message, OpenAI's
// image content parts in a user message right after the tool results
// (its tool messages cannot carry images).
func TestBackendsToolImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "Take screenshots."},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "screenshot", Arguments: json.RawMessage(`{}`)},
			{ID: "c2", Index: 1, Name: "read", Arguments: json.RawMessage(`{}`)}}},
		{Role: llm.RoleTool, ToolName: "screenshot", ToolCallID: "c1", Content: "[image: image/png]", Images: []llm.Image{{MIMEType: "image/png", Data: png}}},
		{Role: llm.RoleTool, ToolName: "read", ToolCallID: "c2", Content: "text only"},
	}
	want64 := base64.StdEncoding.EncodeToString(png)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			srv := b.fake(oneTurn)
			defer srv.Close()
			m := b.model(t, srv, backendOpts{})
			if _, err := llm.Collect(m.Chat(context.Background(), llm.Request{Messages: msgs})); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("requests: %d", len(reqs))
			}
			var body struct {
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
					Images  []string        `json:"images"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(reqs[0], &body); err != nil {
				t.Fatal(err)
			}
			switch b.name {
			case "ollama":
				if len(body.Messages) != 4 || len(body.Messages[2].Images) != 1 || body.Messages[2].Images[0] != want64 {
					t.Fatalf("want the image on the tool message: %s", reqs[0])
				}
			case "openai":
				if len(body.Messages) != 5 || body.Messages[2].Role != "tool" || body.Messages[3].Role != "tool" || body.Messages[4].Role != "user" {
					t.Fatalf("want tool, tool, then one user message with the images: %s", reqs[0])
				}
				var parts []struct {
					Type     string `json:"type"`
					Text     string `json:"text"`
					ImageURL struct {
						URL string `json:"url"`
					} `json:"image_url"`
				}
				if err := json.Unmarshal(body.Messages[4].Content, &parts); err != nil {
					t.Fatal(err)
				}
				if len(parts) != 2 || parts[0].Text != "Images returned by tool screenshot:" ||
					parts[1].ImageURL.URL != "data:image/png;base64,"+want64 {
					t.Fatalf("image parts: %+v", parts)
				}
			}
		})
	}
}
