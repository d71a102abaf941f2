package toolcall

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Runtimes deliver text in chunks that cut special tokens after their
// first byte ("\n</think" then ">{" in tt-inference-server issue #4386),
// send whitespace-only and empty deltas between tokens (vLLM issue
// #20611 streams "\n" alone after <tool_call>), and split multi-byte
// characters. Every corpus case must stream to the one-shot Result under
// each of these chunkings.

// quirkChunkings returns the chunkings of s that runtimes produce.
func quirkChunkings(s string) map[string][]string {
	out := map[string][]string{}
	// Cut before every byte that can open markup, so that each token
	// arrives as its first byte and then the rest.
	var atTriggers []string
	last := 0
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '<', '[', '|', '{', '`', '>', '/':
			atTriggers = append(atTriggers, s[last:i])
			last = i
		}
	}
	out["cut at triggers"] = append(atTriggers, s[last:])
	// Blank runs as chunks of their own, with empty Feeds between.
	var blanks []string
	last = 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || (i > 0 && isSpace(s[i]) != isSpace(s[i-1])) {
			if i > last {
				blanks = append(blanks, s[last:i], "")
			}
			last = i
		}
	}
	out["blank runs and empty feeds"] = blanks
	// One byte at a time: every rune and token is split.
	bytesOne := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		bytesOne[i] = s[i : i+1]
	}
	out["bytes"] = bytesOne
	return out
}

func TestStreamQuirkChunkings(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	n := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var c corpusCase
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var opts []Option
			if c.Tools != nil {
				opts = append(opts, WithTools(c.Tools...))
			}
			for how, chunks := range quirkChunkings(c.In) {
				if strings.Join(chunks, "") != c.In {
					t.Fatalf("%s: chunking %q loses bytes", c.Src, how)
				}
				if err := streamChunks(chunks, opts...); err != nil {
					t.Errorf("%s, %s: %v", c.Src, how, err)
				}
			}
			n++
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatal("corpus is empty")
	}
}
