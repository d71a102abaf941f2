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
// (issue 26) and 87/94 after, with no invented call; round 6 scored 49/63
// before its fixes and 53/63 after, with no invented call either; round 7
// scored 22/32 before its fixes and 31/32 after, with no invented call.
// Reading GigaChat 3's role marker and Functionary v2's headers later
// brought round 6 to 56/63.
var blindMisses = map[string]string{
	"blind7: command-a response with citation markup (vLLM tests/tool_parsers/test_cohere_command_tool_parser.py: citations_no_tool_calls)": "Command A's citation spans (<co>…</co: 0:[1]>) annotate grounded text, they are not call markup; an application that renders citations reads them from Text",
	"blind6: bracket 'Calling tool' line as a history-rendered call (vllm-mlx tests/test_tool_parsers.py: Qwen bracket format)":             "one server's rendering of past calls into the prompt (vLLM-MLX), not a template's call syntax; a model imitating it is asked to use its own format",
	"blind6: bare bracket call with JSON arguments, allow-list (vllm-mlx tests/test_tool_parsers.py: auto parser bare bracket)":             "a pythonic call takes keyword arguments; a positional JSON object names no parameter, and only one auto-detecting parser reads it",
	"blind6: dots.llm1 dots_function_call wrapper (agent tool_parser marker+JSON families (GigaChat3, dots, OpenAI response))":              "no public dots.llm1 template or reference parser writes <dots_function_call>; only one agent's parser names it",
	"blind6: command-r-plus Action: json fence with two tool_name calls (ollama tools template tests (command-r-plus, mistral))":            "calls right; the \"Action:\" label stays in Text, as any label before a fenced call does",
	"blind6: prose then function_call: label and a call key (tinyhumansai/opencompany #2010)":                                               "one model's slip seen once: a \"call\" key naming the tool is not in any template, and taking it would make data objects with a call key run",
	"blind6: generic response envelope whose text is a call (nugget/thane-ai-agent #21, granite3.1)":                                        "llama.cpp's {\"response\": …} is the answer's text; running a call found inside that string would parse the answer twice, and the text shows it to the user instead",
	"blind6: gemma 4 call whose special tokens the server stripped, allow-list (Gitlawb/openclaude #380)":                                   "without its <|\"|> tokens a Gemma 4 call has no string delimiters (\"hello,path:a.txt\" cannot be split safely); the server must keep special tokens",
	"blind5: prose glued before and after the block (github/app #1499 prose-before desync)":                                                 "calls right; the expectation puts a space between the sentences that the input does not have, and the parser never adds text",
	"blind5: text between two calls on one line (sglang #10995 review: before/between/after)":                                               "the review's placeholder words read as one sentence running on across each block (\"before <call> between\"), which issue 26 makes a mark of documentation",
	"blind5: multi-line draft call inside reasoning opened in the prompt (issue 26)":                                                        "calls right; the draft's markup leaves Text instead of staying as the expectation has it: a stream never showed it, and showing it late would break the order of the text events",
	"blind5: draft on its own lines, then orphan </think> and an answer without calls (issue 26)":                                           "calls right; the draft's markup leaves Text (see above)",
	"blind5: single-line draft then orphan </think> then the real call (vLLM #20611 shape)":                                                 "calls right; the draft's markup leaves Text (see above)",
	"blind5: minimax-m3 namespaced invoke (mlx-lm #1416)":                                                                                   "declined in the package doc: MiniMax-M3 values are untyped raw text, so reading them needs the tool schema",
}

func TestBlindRound5(t *testing.T) { scoreBlind(t, "testdata/blind/round5.jsonl") }

func TestBlindRound6(t *testing.T) { scoreBlind(t, "testdata/blind/round6.jsonl") }

func TestBlindRound7(t *testing.T) { scoreBlind(t, "testdata/blind/round7.jsonl") }

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
