package ollama_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
)

// TestLongLines: lines longer than the pooled read buffer are assembled
// whole; a line beyond the 8 MiB limit is an error, not a silent end.
func TestLongLines(t *testing.T) {
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	for _, size := range []int{10, 32<<10 - 50, 32 << 10, 200 << 10, 3 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			content := strings.Repeat("x", size)
			srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: content}}})
			defer srv.Close()
			srv.ChunkRunes = size       // the whole answer in one line
			srv.ContextLength = 1 << 20 // room for the longest answer
			m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "fake", HTTPClient: srv.Client(), NumCtx: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			r, err := llm.Collect(m.Chat(t.Context(), req))
			if err != nil || r.Message.Content != content {
				t.Fatalf("got %d bytes, %v; want %d bytes", len(r.Message.Content), err, size)
			}
		})
	}
	t.Run("over the limit", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"message":{"role":"assistant","content":"%s"},"done":false}`+"\n", strings.Repeat("y", 9<<20))
		}))
		defer srv.Close()
		m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "fake"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := llm.Collect(m.Chat(t.Context(), req)); !errors.Is(err, llm.ErrResponseLimit) || !strings.Contains(err.Error(), "8388608 bytes of NDJSON line") {
			t.Fatalf("a 9 MiB line: err = %v, want one naming the limit", err)
		}
	})
}
