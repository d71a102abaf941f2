package ollama_test

import (
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
)

// BenchmarkChat streams a 4 KiB response in 16-rune NDJSON lines from the
// fake server over loopback: the per-response cost of the backend
// (request encoding, transport wrapper, line decoding, chunk conversion).
func BenchmarkChat(b *testing.B) {
	content := strings.Repeat("func main() { fmt.Println(\"hi\") }\n", 130)[:4096]
	turns := make([]llmtest.Turn, b.N+1)
	for i := range turns {
		turns[i] = llmtest.Turn{Content: content}
	}
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: turns})
	defer srv.Close()
	srv.ChunkRunes = 16
	m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "fake", HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "write code"}}}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := llm.Collect(m.Chat(b.Context(), req))
		if err != nil || len(r.Message.Content) != len(content) {
			b.Fatal(err)
		}
	}
}
