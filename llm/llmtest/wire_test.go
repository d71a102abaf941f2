package llmtest_test

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestFakeWireGolden pins the exact bytes the fake servers stream for
// testdata/hello.jsonl, so the wire formats can be reviewed against
// Ollama's docs/api.md and OpenAI's streaming reference, and cannot drift
// unnoticed. Run with -update to rewrite.
func TestFakeWireGolden(t *testing.T) {
	script, err := llmtest.ReadScriptFile("testdata/hello.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		golden string
		fake   func(llmtest.Script) *llmtest.FakeServer
		path   string
		body   string
	}{
		{"ollama_chat.golden", llmtest.NewFakeOllama, "/api/chat",
			`{"model":"qwen3:8b","messages":[{"role":"user","content":"make hello.txt"}],"stream":true}`},
		{"openai_chat.golden", llmtest.NewFakeOpenAI, "/v1/chat/completions",
			`{"model":"qwen3:8b","messages":[{"role":"user","content":"make hello.txt"}],"stream":true,"stream_options":{"include_usage":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			srv := tt.fake(script)
			defer srv.Close()
			srv.ChunkRunes = 12
			var got strings.Builder
			for range script.Turns {
				resp, err := srv.Client().Post(srv.URL+tt.path, "application/json", strings.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				got.WriteString("# " + resp.Header.Get("Content-Type") + "\n")
				got.Write(b)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestFakeWireGolden -update)", err)
			}
			if got.String() != string(want) {
				t.Errorf("wire format changed; diff against %s:\n%s", path, got.String())
			}
		})
	}
}
