package llmtest_test

import (
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
)

// BenchmarkScriptedModel plays a 4 KiB response in the default small
// chunks: the cost the scripted model adds to an agent test.
func BenchmarkScriptedModel(b *testing.B) {
	content := strings.Repeat("All tests pass. ", 256)
	turns := make([]llmtest.Turn, b.N)
	for i := range turns {
		turns[i] = llmtest.Turn{Content: content}
	}
	m := llmtest.NewScripted(llmtest.Script{Turns: turns})
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := llm.Collect(m.Chat(b.Context(), llm.Request{})); err != nil {
			b.Fatal(err)
		}
	}
}
