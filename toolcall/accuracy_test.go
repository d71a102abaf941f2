package toolcall

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// corpusCase is one model output of testdata/corpus/outputs.jsonl with
// the calls and text a reader expects, written by hand from the cited
// source (peers' parser tests, issue reports, adversarial variants).
type corpusCase struct {
	Src   string   `json:"src"`
	In    string   `json:"in"`
	Tools []string `json:"tools"`
	Calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"calls"`
	Text string `json:"text"`
}

// TestCorpusAccuracy measures the share of outputs parsed exactly right:
// the same calls (names and arguments) and the same text up to blank
// space. Every case also streams in 3-byte chunks to the same Result.
// Every case must pass; the share is logged because the project's bar for
// outside corpora is at least 97% right and no invented call.
func TestCorpusAccuracy(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	total, right, invented := 0, 0, 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r, i, n := scoreCorpus(t, f)
		f.Close()
		right, invented, total = right+r, invented+i, total+n
	}
	pct := 100 * float64(right) / float64(total)
	t.Logf("corpus: %d/%d right (%.1f%%), %d invented calls", right, total, pct, invented)
	if pct < 97 || invented > 0 {
		t.Errorf("corpus: %.1f%% right and %d invented calls; want ≥ 97%% and none", pct, invented)
	}
}

// scoreCorpus parses every case of one corpus file and reports how many
// were right, how many calls were invented and how many cases it held.
func scoreCorpus(t *testing.T, f *os.File) (right, invented, total int) {
	t.Helper()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s line %d: %v", f.Name(), total+1, err)
		}
		total++
		var opts []Option
		if c.Tools != nil {
			opts = append(opts, WithTools(c.Tools...))
		}
		r := ParseWith(c.In, opts...)
		if err := streamChunks(split(c.In, []byte{3}), opts...); err != nil {
			t.Errorf("%s: %v", c.Src, err)
		}
		ok := len(r.Calls) == len(c.Calls) && squash(r.Text) == squash(c.Text)
		for i := range min(len(r.Calls), len(c.Calls)) {
			var got, want any
			json.Unmarshal(r.Calls[i].Arguments, &got)
			json.Unmarshal(c.Calls[i].Arguments, &want)
			ok = ok && r.Calls[i].Name == c.Calls[i].Name && reflect.DeepEqual(got, want)
		}
		if extra := len(r.Calls) - len(c.Calls); extra > 0 {
			invented += extra
		}
		if ok {
			right++
			continue
		}
		// Every case of this corpus is held: a miss is a regression.
		t.Errorf("wrong: %s\n  input: %q\n  calls: %v\n  text:  %q", c.Src, c.In, r.Calls, r.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return right, invented, total
}

// squash collapses runs of blank space, so that the comparison ignores
// where the line breaks around a removed call went.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }
