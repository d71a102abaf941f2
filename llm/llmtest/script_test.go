package llmtest_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm/llmtest"
)

func TestParseScript(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		turns   int
		caps    bool
		errLine int
		errHas  string
	}{
		{name: "design example", in: `{"capabilities":{"tools":true,"thinking":false}}
{"thinking":"hm","content":"hi","tool_calls":[{"name":"read_file","arguments":{"path":"a"}}]}
{}`, turns: 2, caps: true},
		{name: "blank lines skipped", in: "\n{\"content\":\"a\"}\n\n{\"content\":\"b\"}\n", turns: 2},
		{name: "arguments absent become {}", in: `{"tool_calls":[{"name":"list_files"}]}`, turns: 1},
		{name: "typo in a field", in: `{"content":"a"}` + "\n" + `{"tool_call":[{"name":"x"}]}`, errLine: 2, errHas: `unknown field "tool_call"`},
		{name: "capabilities later", in: `{"content":"a"}` + "\n" + `{"capabilities":{"tools":true}}`, errLine: 2, errHas: "only allowed as the first line"},
		{name: "capabilities not an object", in: `{"capabilities":true}`, errLine: 1, errHas: "capabilities"},
		{name: "missing name", in: `{"tool_calls":[{"arguments":{}}]}`, errLine: 1, errHas: `missing "name"`},
		{name: "arguments not an object", in: `{"tool_calls":[{"name":"x","arguments":"{}"}]}`, errLine: 1, errHas: "must be a JSON object"},
		{name: "not JSON", in: `content: hi`, errLine: 1, errHas: "invalid character"},
		{name: "two values on a line", in: `{"content":"a"} {"content":"b"}`, errLine: 1, errHas: "more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := llmtest.ParseScript(strings.NewReader(tt.in))
			if tt.errHas != "" {
				var se *llmtest.ScriptError
				if !errors.As(err, &se) || se.Line != tt.errLine || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want line %d mentioning %q", err, tt.errLine, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Turns) != tt.turns || (s.Capabilities != nil) != tt.caps {
				t.Fatalf("script = %+v", s)
			}
			for _, turn := range s.Turns {
				for _, c := range turn.ToolCalls {
					if len(c.Arguments) == 0 || c.Arguments[0] != '{' {
						t.Errorf("arguments %q not an object", c.Arguments)
					}
				}
			}
		})
	}
}

func TestReadScriptFileNamesTheFile(t *testing.T) {
	_, err := llmtest.ReadScriptFile("testdata/nope.jsonl")
	if err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Fatalf("err = %v", err)
	}
	s, err := llmtest.ReadScriptFile("testdata/hello.jsonl")
	if err != nil || len(s.Turns) != 2 || !s.Capabilities.Tools {
		t.Fatalf("hello.jsonl: %+v %v", s, err)
	}
}

// FuzzParseScript checks that whatever parses writes back to a script that
// parses to the same thing.
func FuzzParseScript(f *testing.F) {
	f.Add(`{"capabilities":{"tools":true,"thinking":true}}` + "\n" + `{"thinking":"t","content":"c","tool_calls":[{"name":"n","arguments":{"a":1}}]}`)
	f.Add(`{"content":"<tool_call>{\"name\":\"x\"}</tool_call>"}`)
	f.Add("\n\n{}\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := llmtest.ParseScript(strings.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if _, err := s.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		s2, err := llmtest.ParseScript(&buf)
		if err != nil {
			t.Fatalf("re-parse of written script failed: %v\n%s", err, buf.String())
		}
		if len(s.Turns) != len(s2.Turns) || !reflect.DeepEqual(s.Capabilities, s2.Capabilities) {
			t.Fatalf("round trip changed the script:\n%+v\n%+v", s, s2)
		}
		for i := range s.Turns {
			a, b := s.Turns[i], s2.Turns[i]
			if a.Thinking != b.Thinking || a.Content != b.Content || len(a.ToolCalls) != len(b.ToolCalls) {
				t.Fatalf("turn %d changed: %+v → %+v", i, a, b)
			}
		}
	})
}
