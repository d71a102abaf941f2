package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// feedAll feeds the chunks and returns every event, Flush's included.
func feedAll(s *Stream, chunks ...string) []Event {
	var evs []Event
	for _, c := range chunks {
		evs = append(evs, s.Feed(c)...)
	}
	return append(evs, s.Flush()...)
}

func texts(evs []Event, kind EventKind) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e.Text)
		}
	}
	return out
}

func TestStreamHoldsOnlyPossibleMarkup(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		// shown[i] is the text displayed after chunk i.
		shown []string
	}{
		{"partial tag held, then released as prose",
			[]string{"Hello <tool", "bar> x"},
			[]string{"Hello ", "Hello <toolbar> x"}},
		{"call removed, prose after shown",
			[]string{"A\n<tool_call>{\"name\":", "\"ls\",\"arguments\":{}}</tool_call>", " B"},
			[]string{"A\n", "A\n", "A\n B"}},
		{"markup inside a sentence shown once the sentence goes on",
			[]string{"Write <tool_call>{\"name\":", "\"ls\",\"arguments\":{}}</tool_call>", " to list"},
			[]string{"Write ", "Write ", "Write <tool_call>{\"name\":\"ls\",\"arguments\":{}}</tool_call> to list"}},
		{"markup between sentences is a call",
			[]string{"Done. <tool_call>{\"name\":", "\"ls\",\"arguments\":{}}</tool_call>", " Next"},
			[]string{"Done. ", "Done. ", "Done.  Next"}},
		{"bare JSON held until it is known not to end the message",
			[]string{"Use {\"name\": \"x\", \"arguments\": {}}", " like this."},
			[]string{"Use ", "Use {\"name\": \"x\", \"arguments\": {}} like this."}},
		{"placeholder released at once",
			[]string{"Fill {name} in", "."},
			[]string{"Fill {name} in", "Fill {name} in."}},
		{"prose fast path holds a possible functools prefix",
			[]string{"A long line of plain prose, longer than any small buffer. functo", "ols[{\"name\": \"x\", \"arguments\": {}}]"},
			[]string{"A long line of plain prose, longer than any small buffer. ", "A long line of plain prose, longer than any small buffer. "}},
		{"prose fast path releases a held prefix that was prose",
			[]string{"Plain prose that mentions func", "tions."},
			[]string{"Plain prose that mentions ", "Plain prose that mentions functions."}},
		{"fence opener held until its language is known",
			[]string{"Code:\n``", "`go\nx := 1\n```\n"},
			[]string{"Code:\n", "Code:\n```go\nx := 1\n```\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStream()
			var shown strings.Builder
			for i, c := range tt.chunks {
				for _, e := range s.Feed(c) {
					if e.Kind == EventText {
						shown.WriteString(e.Text)
					}
				}
				if shown.String() != tt.shown[i] {
					t.Errorf("after chunk %d: shown %q, want %q", i, shown.String(), tt.shown[i])
				}
			}
		})
	}
}

func TestStreamCallEvents(t *testing.T) {
	content := strings.Repeat("line of code\\n", 200)
	in := `I'll write it. <tool_call>{"name": "write_file", "arguments": {"path": "main.go", "content": "` + content + `"}}</tool_call>`
	s := NewStream()
	var got []Event
	pathAt, contentEnd := -1, strings.Index(in, `"}}`)
	for i := 0; i < len(in); i += 8 {
		for _, e := range s.Feed(in[i:min(i+8, len(in))]) {
			if e.Kind == EventCallPath {
				pathAt = i
			}
			got = append(got, e)
		}
	}
	got = append(got, s.Flush()...)
	var kinds []string
	for _, e := range got {
		if e.Kind != EventText {
			kinds = append(kinds, e.Type())
		}
	}
	if strings.Join(kinds, ",") != "call_start,call_name,call_path,call" {
		t.Fatalf("events %v", kinds)
	}
	if pathAt < 0 || pathAt >= contentEnd-100 {
		t.Errorf("path event at byte %d; want it long before the content ends at %d", pathAt, contentEnd)
	}
	for _, e := range got {
		switch e.Kind {
		case EventCallName:
			if e.Name != "write_file" {
				t.Errorf("name event %q", e.Name)
			}
		case EventCallPath:
			if e.Path != "main.go" {
				t.Errorf("path event %q", e.Path)
			}
		case EventCall:
			if e.Call.Name != "write_file" || e.Index != 0 {
				t.Errorf("call event %+v", e)
			}
		}
	}
	if txt := strings.Join(texts(got, EventText), ""); txt != "I'll write it. " {
		t.Errorf("text %q", txt)
	}
}

func TestStreamPrefixNamedFormats(t *testing.T) {
	for _, in := range []string{
		`[TOOL_CALLS]write_file[ARGS]{"path": "a.go", "content": "x"}`,
		`<function=write_file>{"path": "a.go", "content": "x"}</function>`,
		`<tool_call><function=write_file>{"path": "a.go", "content": "x"}</function></tool_call>`,
		`<tool_call>{"name": "write_file", "path": "a.go", "content": "x"}</tool_call>`,
		`<tool_call>[{"name": "write_file", "arguments": {"path": "a.go", "content": "x"}}]</tool_call>`,
		"<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\nx\n</parameter>\n</function>\n</tool_call>",
	} {
		evs := feedAll(NewStream(), in)
		var name, path string
		for _, e := range evs {
			switch e.Kind {
			case EventCallStart, EventCallName:
				if e.Name != "" {
					name = e.Name
				}
			case EventCallPath:
				path = e.Path
			}
		}
		if name != "write_file" || path != "a.go" {
			t.Errorf("%s: name %q path %q", in, name, path)
		}
	}
}

func TestStreamThinkingEvents(t *testing.T) {
	evs := feedAll(NewStream(), "<think>step one, ", "step two</think>", "Answer.")
	if th := strings.Join(texts(evs, EventThinking), ""); th != "step one, step two" {
		t.Errorf("thinking %q", th)
	}
	if tx := strings.Join(texts(evs, EventText), ""); tx != "Answer." {
		t.Errorf("text %q", tx)
	}
	// A think block that never closes: the call inside is real, and the
	// reasoning before it streamed as thinking while it arrived.
	s := NewStream()
	first := s.Feed("<think>reading the file first. ")
	if th := strings.Join(texts(first, EventThinking), ""); th != "reading the file first. " {
		t.Errorf("thinking not streamed: %q", th)
	}
	s.Feed(`<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>`)
	if r := s.Close(); len(r.Calls) != 1 || r.Thinking != "reading the file first. " {
		t.Errorf("unclosed think: %+v", r)
	}
}

func TestStreamAfterClose(t *testing.T) {
	s := NewStream()
	s.Feed("hi")
	r1 := s.Close()
	if evs := s.Feed(" more"); evs != nil {
		t.Errorf("Feed after Close returned %v", evs)
	}
	if evs := s.Flush(); evs != nil {
		t.Errorf("second Flush returned %v", evs)
	}
	if r2 := s.Close(); r2.Text != r1.Text || r1.Text != "hi" {
		t.Errorf("Close changed: %q then %q", r1.Text, r2.Text)
	}
}

func TestFailureErrors(t *testing.T) {
	r := ParseWith(`<tool_call>{"name": "rm", "arguments": {}}</tool_call><tool_call>{"name": "x", "arguments": {"a": 1</tool_call>`, WithTools("ls"))
	if len(r.Failures) != 2 {
		t.Fatalf("failures %+v", r.Failures)
	}
	if !errors.Is(r.Failures[0], ErrUnknownTool) {
		t.Errorf("first failure %v is not ErrUnknownTool", r.Failures[0])
	}
	if !errors.Is(r.Failures[1], ErrInvalidJSON) {
		t.Errorf("second failure %v is not ErrInvalidJSON", r.Failures[1])
	}
	var f Failure
	if !errors.As(error(r.Failures[0]), &f) || f.Start != 0 || !strings.Contains(f.Error(), "unknown tool") {
		t.Errorf("errors.As: %+v", f)
	}
}

// TestLargeArgument: a 1 MiB argument full of markup look-alikes parses,
// one-shot and streamed in small chunks.
func TestLargeArgument(t *testing.T) {
	var b strings.Builder
	for b.Len() < 1<<20 {
		b.WriteString(`{ \"x\": \"</tool_call>\" } \\ \u00e9 [TOOL_CALLS] <think> `)
	}
	in := `<tool_call>{"name": "write_file", "arguments": {"path": "big", "content": "` + b.String() + `"}}</tool_call>`
	r := Parse(in)
	if len(r.Calls) != 1 || len(r.Failures) != 0 || r.Text != "" {
		t.Fatalf("%d calls, %d failures, text %d bytes", len(r.Calls), len(r.Failures), len(r.Text))
	}
	var args struct{ Content string }
	if err := json.Unmarshal(r.Calls[0].Arguments, &args); err != nil || !strings.HasPrefix(args.Content, `{ "x": "</tool_call>" }`) {
		t.Fatalf("arguments: %v", err)
	}
	if err := streamChunks(chunks(in, 61)); err != nil {
		t.Fatal(err)
	}
}

// TestLongFenceInfo: a ``` line longer than the info-string window is not
// a fence, whether or not the output ends on that line.
func TestLongFenceInfo(t *testing.T) {
	in := "```" + strings.Repeat("x", 300) + ` {"name": "a", "arguments": {}}`
	if err := streamChunks(chunks(in, 16)); err != nil {
		t.Fatal(err)
	}
	if r := Parse(in); len(r.Calls) != 1 {
		t.Errorf("calls = %d, want the bare call after the non-fence", len(r.Calls))
	}
}

func TestEventJSON(t *testing.T) {
	evs := feedAll(NewStream(), `Hi <tool_call>{"name": "ls", "arguments": {}}</tool_call>`)
	var lines []string
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
		var back Event
		if err := json.Unmarshal(b, &back); err != nil || back.Kind != e.Kind || back.Block != e.Block {
			t.Errorf("round trip of %s: %+v, %v", b, back, err)
		}
	}
	want := `{"type":"text","text":"Hi "}` + "\n" +
		`{"type":"call_start","block":0,"format":"tag"}` + "\n" +
		`{"type":"call_name","block":0,"format":"tag","name":"ls"}` + "\n" +
		`{"type":"call","block":0,"format":"tag","name":"ls","index":0,"call":{"name":"ls","arguments":{},"kind":"tool","format":"tag","start":3,"end":57}}`
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestZeroStream checks that a zero Stream works exactly like NewStream():
// same events and same Result for every golden input.
func TestZeroStream(t *testing.T) {
	for _, in := range goldenInputs(t) {
		chunks := split(in, []byte{7})
		var zero Stream
		want := NewStream()
		gotEv, wantEv := feedAll(&zero, chunks...), feedAll(want, chunks...)
		if !reflect.DeepEqual(eventTexts(gotEv), eventTexts(wantEv)) {
			t.Fatalf("input %q: zero Stream events %v, NewStream %v", in, eventTexts(gotEv), eventTexts(wantEv))
		}
		if g, w := zero.Close(), want.Close(); !reflect.DeepEqual(g, w) {
			t.Fatalf("input %q: zero Stream result %+v, NewStream %+v", in, g, w)
		}
	}
	var s Stream // Close alone must not panic and must give an empty result
	if r := s.Close(); len(r.Calls) != 0 || r.Text != "" {
		t.Errorf("Close of an unused zero Stream = %+v", r)
	}
}

// eventTexts summarises events as comparable strings.
func eventTexts(evs []Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, fmt.Sprintf("%d|%s|%s|%s", e.Kind, e.Name, e.Text, e.Path))
	}
	return out
}

// TestHeldFunctools checks the stream's held suffix against the
// definition for "functools": the longest suffix of b that is a prefix
// of the word (GigaChat's role name may hold more, see TestHeldGigaChat).
func TestHeldFunctools(t *testing.T) {
	for _, b := range []string{"", "f", "fu", "a functoo", "functo", "functools", "xfunctools", "oo", "o", "so", "use func", "tools", "c", "functoolss", "functool"} {
		if got, want := heldOf(b), max(heldDef(b, functoolsWord, false), heldDef(b, gigaWord, true)); got != want {
			t.Errorf("heldWords(%q) = %d, want %d", b, got, want)
		}
	}
}
