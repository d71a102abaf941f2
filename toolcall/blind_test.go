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
// by src, with why they are left. Round 5 scored 35/94 before its fixes
// (issue 26) and 87/94 after, with no invented call.
var blindMisses = map[string]string{
	"blind5: prose glued before and after the block (github/app #1499 prose-before desync)":       "calls right; the expectation puts a space between the sentences that the input does not have, and the parser never adds text",
	"blind5: text between two calls on one line (sglang #10995 review: before/between/after)":     "the review's placeholder words read as one sentence running on across each block (\"before <call> between\"), which issue 26 makes a mark of documentation",
	"blind5: multi-line draft call inside reasoning opened in the prompt (issue 26)":              "calls right; the draft's markup leaves Text instead of staying as the expectation has it: a stream never showed it, and showing it late would break the order of the text events",
	"blind5: draft on its own lines, then orphan </think> and an answer without calls (issue 26)": "calls right; the draft's markup leaves Text (see above)",
	"blind5: single-line draft then orphan </think> then the real call (vLLM #20611 shape)":       "calls right; the draft's markup leaves Text (see above)",
	"blind5: minimax-m3 namespaced invoke (mlx-lm #1416)":                                         "declined in the package doc: MiniMax-M3 values are untyped raw text, so reading them needs the tool schema",
	"blind5: two <function name=> items in one wrapper (Hal0 #1509)":                              "<param name=…> is one harness's own spelling, not a model's template; its siblings in <function_calls>/<invoke> are read",
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
