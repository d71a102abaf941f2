package toolcall

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// The blind batches of testdata/blind hold model outputs written from
// sources the parser was not built from (other engines' parser tests and
// issue reports, cited in each case's src), with the expectations written
// before the parser ran on them. Each file is scored on its own: the share
// right is logged, and a case outside blindMisses that is wrong fails the
// test, as does a case inside it that has become right (so the list only
// shrinks).

// blindMisses lists the cases of each batch the parser still gets wrong,
// by src, with why they are left.
var blindMisses = map[string]string{
	"blind5: prose glued before and after the block (github/app #1499 prose-before desync)":       "measured before the round-5 fixes",
	"blind5: text between two calls on one line (sglang #10995 review: before/between/after)":     "measured before the round-5 fixes",
	"blind5: multi-line draft call inside reasoning opened in the prompt (issue 26)":              "measured before the round-5 fixes",
	"blind5: draft on its own lines, then orphan </think> and an answer without calls (issue 26)": "measured before the round-5 fixes",
	"blind5: single-line draft then orphan </think> then the real call (vLLM #20611 shape)":       "measured before the round-5 fixes",
	"blind5: minimax-m3 namespaced invoke (mlx-lm #1416)":                                         "measured before the round-5 fixes",
	"blind5: two <function name=> items in one wrapper (Hal0 #1509)":                              "measured before the round-5 fixes",
}

func TestBlindRound5(t *testing.T) { scoreBlind(t, "testdata/blind/round5.jsonl") }

func scoreBlind(t *testing.T, name string) {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	total, right, invented := 0, 0, 0
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s line %d: %v", name, total+1, err)
		}
		total++
		ok, extra := judgeCase(t, c)
		invented += extra
		_, known := blindMisses[c.Src]
		switch {
		case ok:
			right++
			if known {
				t.Errorf("now right, remove it from blindMisses: %s", c.Src)
			}
		case !known:
			r := ParseWith(c.In, caseOptions(c)...)
			t.Errorf("wrong: %s\n  input: %q\n  calls: %v\n  text:  %q\n  failures: %v", c.Src, c.In, r.Calls, r.Text, r.Failures)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d/%d right (%.1f%%), %d invented calls", name, right, total, 100*float64(right)/float64(total), invented)
}

func caseOptions(c corpusCase) []Option {
	if c.Tools != nil {
		return []Option{WithTools(c.Tools...)}
	}
	return nil
}

// judgeCase parses one case in one shot and in 3-byte chunks (which must
// agree) and reports whether the calls and the text are the expected
// ones, and how many calls were invented.
func judgeCase(t *testing.T, c corpusCase) (ok bool, invented int) {
	t.Helper()
	opts := caseOptions(c)
	r := ParseWith(c.In, opts...)
	if err := streamChunks(split(c.In, []byte{3}), opts...); err != nil {
		t.Errorf("%s: %v", c.Src, err)
	}
	ok = len(r.Calls) == len(c.Calls) && squash(r.Text) == squash(c.Text)
	for i := range min(len(r.Calls), len(c.Calls)) {
		var got, want any
		json.Unmarshal(r.Calls[i].Arguments, &got)
		json.Unmarshal(c.Calls[i].Arguments, &want)
		ok = ok && r.Calls[i].Name == c.Calls[i].Name && reflect.DeepEqual(got, want)
	}
	return ok, max(0, len(r.Calls)-len(c.Calls))
}
