package toolcall

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	ollamatools "github.com/ollama/ollama/tools"
)

// Benchmarks against Ollama's own parser (github.com/ollama/ollama/tools,
// the pinned module version) on the same inputs in the same run:
//
//	go test -run XXX -bench 'Parse|PlainProse' -benchmem -count 10 ./toolcall/ > bench.txt
//	benchstat -col /impl bench.txt
//
// (benchstat: go install golang.org/x/perf/cmd/benchstat@latest). Each
// input is parsed one-shot and streamed in 16-byte chunks; the impl key
// lets benchstat put the two parsers side by side.

const prosePara = "The parser scans ordinary prose quickly because only a handful of bytes can start markup. " +
	"Most of a model's answer is explanation, lists and code, and none of it should cost more than a memory scan. "

func proseInput() string {
	var b strings.Builder
	for b.Len() < 64<<10 {
		b.WriteString(prosePara)
		if b.Len()%(16<<10) < len(prosePara) {
			b.WriteString("\n\nLet me read it. <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/main.go\"}}</tool_call>\n\n")
		}
	}
	return b.String()
}

func callsInput(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/pkg%d/file_%d.go\"}}</tool_call>\n", i%7, i)
	}
	return b.String()
}

func bigArgInput(size int) string {
	var b strings.Builder
	b.WriteString(`<tool_call>{"name": "write_file", "arguments": {"path": "big.txt", "content": "`)
	line := `func f() { return \"}</tool_call>\" }\n`
	for b.Len() < size {
		b.WriteString(line)
	}
	b.WriteString(`"}}</tool_call>`)
	return b.String()
}

// longLineInput is prose on one line of about size bytes with a call
// between two sentences every `every` bytes, as models without newlines
// write: every look-back and look-ahead must stay bounded on it.
func longLineInput(size, every int) string {
	var b strings.Builder
	next := every
	for b.Len() < size {
		b.WriteString(strings.TrimSuffix(prosePara, " "))
		b.WriteByte(' ')
		if b.Len() >= next {
			fmt.Fprintf(&b, "I'll read it. <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/f%d.go\"}}</tool_call> Then I'll go on. ", b.Len())
			next += every
		}
	}
	return b.String()
}

var benchInputs = []struct {
	name string
	in   string
}{
	{"prose", proseInput()},
	{"calls200", callsInput(200)},
	{"arg256k", bigArgInput(256 << 10)},
	{"line64k2", longLineInput(64<<10, 32<<10)},
	{"line512k", longLineInput(512<<10, 1<<10)},
}

func ollamaTools() []api.Tool {
	var ts []api.Tool
	for _, n := range []string{"read_file", "write_file", "list_dir"} {
		var t api.Tool
		t.Type = "function"
		t.Function.Name = n
		ts = append(ts, t)
	}
	return ts
}

func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	tools := ollamaTools()
	for _, in := range benchInputs {
		parts := chunks(in.in, 16)
		b.Run(in.name+"/oneshot/impl=tether", func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				r := Parse(in.in)
				if len(r.Calls) == 0 {
					b.Fatal("no calls")
				}
			}
		})
		b.Run(in.name+"/oneshot/impl=ollama", func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				p := ollamatools.NewParserWithTag(tools, "<tool_call>")
				p.Add(in.in)
			}
		})
		b.Run(in.name+"/stream16/impl=tether", func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				s := NewStream()
				for _, c := range parts {
					s.Feed(c)
				}
				if r := s.Close(); len(r.Calls) == 0 {
					b.Fatal("no calls")
				}
			}
		})
		b.Run(in.name+"/stream16/impl=ollama", func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				p := ollamatools.NewParserWithTag(tools, "<tool_call>")
				for _, c := range parts {
					p.Add(c)
				}
			}
		})
	}
}

// BenchmarkPlainProse streams prose that holds no markup at all, the
// commonest reply, in 16-byte chunks: the fixed cost of each Feed
// decides it.
func BenchmarkPlainProse(b *testing.B) {
	in := strings.Repeat(prosePara, 300)
	parts := chunks(in, 16)
	tools := ollamaTools()
	b.Run("stream16/impl=tether", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			s := NewStream()
			for _, c := range parts {
				s.Feed(c)
			}
			if r := s.Close(); len(r.Text) != len(in) {
				b.Fatal("text lost")
			}
		}
	})
	b.Run("stream16/impl=ollama", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			p := ollamatools.NewParserWithTag(tools, "<tool_call>")
			for _, c := range parts {
				p.Add(c)
			}
		}
	})
}

// toolCodeInput is a Gemma ```tool_code fence whose one call has an
// argument of about size bytes on one line: the fence reader must not
// rescan the line on every chunk.
func toolCodeInput(size int) string {
	return "```tool_code\nprint(write_file(path=\"a.txt\", content=\"" + strings.Repeat("x", size) + "\"))\n```"
}

// BenchmarkStreamLinear streams 1x and 4x the input in 16-byte chunks:
// linear cost means ns/op grows about 4x and MB/s stays flat.
func BenchmarkStreamLinear(b *testing.B) {
	for _, size := range []struct {
		name string
		in   string
	}{
		{"calls/1x", callsInput(50)},
		{"calls/4x", callsInput(200)},
		{"arg/1x", bigArgInput(64 << 10)},
		{"arg/4x", bigArgInput(256 << 10)},
		{"prose/1x", strings.Repeat(prosePara, 150)},
		{"prose/4x", strings.Repeat(prosePara, 600)},
		{"line/1x", longLineInput(128<<10, 1<<10)},
		{"line/4x", longLineInput(512<<10, 1<<10)},
		{"gap/1x", "<|tool_calls_section_begin|>" + strings.Repeat(" ", 32<<10)},
		{"gap/4x", "<|tool_calls_section_begin|>" + strings.Repeat(" ", 128<<10)},
		{"fencegap/1x", "```json\n{\"name\": \"a\", \"arguments\": {}}\n```" + strings.Repeat(" ", 32<<10)},
		{"fencegap/4x", "```json\n{\"name\": \"a\", \"arguments\": {}}\n```" + strings.Repeat(" ", 128<<10)},
		{"toolcode/1x", toolCodeInput(12 << 10)},
		{"toolcode/4x", toolCodeInput(48 << 10)},
	} {
		parts := chunks(size.in, 16)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(size.in)))
			b.ReportAllocs()
			for b.Loop() {
				s := NewStream(WithTools("write_file"))
				for _, c := range parts {
					s.Feed(c)
				}
				s.Close()
			}
		})
	}
}

// TestBenchInputs checks that the benchmark inputs parse as intended, so
// the benchmarks measure real work.
func TestBenchInputs(t *testing.T) {
	want := map[string]int{"prose": 4, "calls200": 200, "arg256k": 1, "line64k2": 2, "line512k": 0}
	for _, in := range benchInputs {
		r := Parse(in.in)
		if in.name == "line512k" {
			want[in.name] = strings.Count(in.in, "<tool_call>")
		}
		if len(r.Calls) != want[in.name] || len(r.Failures) != 0 || strings.Contains(r.Text, "<tool_call>") {
			t.Errorf("%s: %d calls, %d failures; want %d calls", in.name, len(r.Calls), len(r.Failures), want[in.name])
		}
	}
	if r := ParseWith(toolCodeInput(100), WithTools("write_file")); len(r.Calls) != 1 {
		t.Errorf("toolCodeInput: %d calls, want 1", len(r.Calls))
	}
}
