package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func d(index int, id, name, args string) ToolCallDelta {
	return ToolCallDelta{Index: index, ID: id, Name: name, Arguments: args}
}

type wantCall struct{ id, name, args string }

func TestToolCallAssembler(t *testing.T) {
	tests := []struct {
		name   string
		deltas []ToolCallDelta
		want   []wantCall
		bad    bool
	}{
		{
			name: "openai: one call, arguments in fragments",
			deltas: []ToolCallDelta{
				d(0, "call_a", "read_file", ""), d(0, "", "", `{"pa`), d(0, "", "", `th":"a.go"}`),
			},
			want: []wantCall{{"call_a", "read_file", `{"path":"a.go"}`}},
		},
		{
			name: "openai: parallel calls with their own indexes, interleaved",
			deltas: []ToolCallDelta{
				d(0, "call_a", "read_file", ""), d(1, "call_b", "list_files", ""),
				d(0, "", "", `{"path":"a"}`), d(1, "", "", `{"dir":"."}`),
			},
			want: []wantCall{{"call_a", "read_file", `{"path":"a"}`}, {"call_b", "list_files", `{"dir":"."}`}},
		},
		{
			name: "every call labelled index 0, told apart by id",
			deltas: []ToolCallDelta{
				d(0, "call_a", "read_file", `{"path":`), d(0, "", "", `"a"}`),
				d(0, "call_b", "read_file", `{"path":"b"}`),
			},
			want: []wantCall{{"call_a", "read_file", `{"path":"a"}`}, {"call_b", "read_file", `{"path":"b"}`}},
		},
		{
			name: "index reused, no ids: a new name starts a new call",
			deltas: []ToolCallDelta{
				d(0, "", "read_file", `{"path":"a"}`), d(0, "", "list_files", `{}`),
			},
			want: []wantCall{{"", "read_file", `{"path":"a"}`}, {"", "list_files", `{}`}},
		},
		{
			name: "identical calls are never de-duplicated",
			deltas: []ToolCallDelta{
				d(0, "", "run", `{"cmd":"make"}`), d(0, "", "run", `{"cmd":"make"}`),
			},
			want: []wantCall{{"", "run", `{"cmd":"make"}`}, {"", "run", `{"cmd":"make"}`}},
		},
		{
			name: "identical calls with the same index and distinct ids",
			deltas: []ToolCallDelta{
				d(0, "x1", "run", `{"cmd":"make"}`), d(0, "x2", "run", `{"cmd":"make"}`),
			},
			want: []wantCall{{"x1", "run", `{"cmd":"make"}`}, {"x2", "run", `{"cmd":"make"}`}},
		},
		{
			name: "server repeats id and name on every fragment",
			deltas: []ToolCallDelta{
				d(0, "c1", "write_file", `{"path":"a",`), d(0, "c1", "write_file", `"content":"x"}`),
			},
			want: []wantCall{{"c1", "write_file", `{"path":"a","content":"x"}`}},
		},
		{
			name: "server repeats only the name while arguments are incomplete",
			deltas: []ToolCallDelta{
				d(0, "", "write_file", `{"path":"a",`), d(0, "", "write_file", `"content":"x"}`),
			},
			want: []wantCall{{"", "write_file", `{"path":"a","content":"x"}`}},
		},
		{
			name: "a call without id, then one with an id at the same index",
			deltas: []ToolCallDelta{
				d(0, "", "read_file", `{"path":"a"}`), d(0, "call_b", "list_files", `{}`),
			},
			want: []wantCall{{"", "read_file", `{"path":"a"}`}, {"call_b", "list_files", `{}`}},
		},
		{
			name: "id arriving on a later fragment joins the open call",
			deltas: []ToolCallDelta{
				d(0, "", "read_file", `{"pa`), d(0, "call_a", "", `th":"a"}`),
			},
			want: []wantCall{{"call_a", "read_file", `{"path":"a"}`}},
		},
		{
			name:   "no arguments at all become {}",
			deltas: []ToolCallDelta{d(0, "c", "list_files", "")},
			want:   []wantCall{{"c", "list_files", `{}`}},
		},
		{
			name:   "arguments that are not an object are kept as a string and reported",
			deltas: []ToolCallDelta{d(0, "c", "run", `{"cmd":"ma`)},
			want:   []wantCall{{"c", "run", `"{\"cmd\":\"ma"`}},
			bad:    true,
		},
		{
			name:   "a call without a name is reported",
			deltas: []ToolCallDelta{d(0, "c", "", `{}`)},
			want:   []wantCall{{"c", "", `{}`}},
			bad:    true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a ToolCallAssembler
			for _, x := range tt.deltas {
				a.Add(x)
			}
			calls, err := a.Calls()
			var mal *MalformedToolCallError
			if tt.bad != errors.As(err, &mal) {
				t.Fatalf("err = %v, want malformed: %v", err, tt.bad)
			}
			if tt.bad && len(mal.Calls) != len(tt.want) {
				t.Errorf("MalformedToolCallError.Calls has %d calls, want %d", len(mal.Calls), len(tt.want))
			}
			if len(calls) != len(tt.want) {
				t.Fatalf("got %d calls %+v, want %d", len(calls), calls, len(tt.want))
			}
			for i, w := range tt.want {
				c := calls[i]
				if c.ID != w.id || c.Name != w.name || string(c.Arguments) != w.args || c.Index != i {
					t.Errorf("call %d = {%s %s %s idx %d}, want {%s %s %s idx %d}", i, c.ID, c.Name, c.Arguments, c.Index, w.id, w.name, w.args, i)
				}
				if !json.Valid(c.Arguments) {
					t.Errorf("call %d arguments are not valid JSON: %s", i, c.Arguments)
				}
			}
		})
	}
}

func TestToolCallAssemblerEmpty(t *testing.T) {
	var a ToolCallAssembler
	calls, err := a.Calls()
	if calls != nil || err != nil || a.Len() != 0 {
		t.Fatalf("empty assembler: %v %v", calls, err)
	}
}

// FuzzToolCallAssembler feeds arbitrary fragment sequences: the assembler
// must not panic, every returned Arguments must be valid JSON, and every
// argument byte fed must come out in some call (nothing dropped).
func FuzzToolCallAssembler(f *testing.F) {
	f.Add(`0|call_a|read_file|{"pa
0|||th":"a"}
1|call_b|run|{}`)
	f.Add(`0||run|{"cmd":"make"}
0||run|{"cmd":"make"}`)
	f.Add(`0|x||{
0|y|n|}`)
	f.Fuzz(func(t *testing.T, script string) {
		var a ToolCallAssembler
		var fed strings.Builder
		for line := range strings.SplitSeq(script, "\n") {
			parts := strings.SplitN(line, "|", 4)
			for len(parts) < 4 {
				parts = append(parts, "")
			}
			idx := 0
			if len(parts[0]) > 0 {
				idx = int(parts[0][0]) % 4
			}
			a.Add(ToolCallDelta{Index: idx, ID: parts[1], Name: parts[2], Arguments: parts[3]})
			fed.WriteString(parts[3])
		}
		held := 0
		for _, c := range a.calls {
			held += c.args.Len()
		}
		if held != fed.Len() {
			t.Fatalf("calls hold %d argument bytes, %d were fed", held, fed.Len())
		}
		calls, _ := a.Calls()
		if len(calls) != a.Len() {
			t.Fatalf("Calls returned %d calls, Len is %d", len(calls), a.Len())
		}
		for _, c := range calls {
			if !json.Valid(c.Arguments) {
				t.Fatalf("invalid JSON arguments %q", c.Arguments)
			}
		}
	})
}

func BenchmarkToolCallAssembler(b *testing.B) {
	args := `{"path":"internal/agent/executor.go","content":"` + strings.Repeat("x", 2000) + `"}`
	var frags []string
	for i := 0; i < len(args); i += 8 {
		frags = append(frags, args[i:min(i+8, len(args))])
	}
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		var a ToolCallAssembler
		a.Add(ToolCallDelta{Index: 0, ID: "call_1", Name: "write_file"})
		for _, f := range frags {
			a.Add(ToolCallDelta{Index: 0, Arguments: f})
		}
		if _, err := a.Calls(); err != nil {
			b.Fatal(err)
		}
	}
}
