package terminal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutputStripsEscapes(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"colour", "\x1b[1;31merror\x1b[0m: bad\n", "error: bad"},
		{"osc title bel", "\x1b]0;my title\x07hello\n", "hello"},
		{"osc 633 st", "\x1b]633;A\x1b\\$ ls\x1b]633;D;0\x07\n", "$ ls"},
		{"escapeless 633", "]633;C\x07done\n", "done"},
		{"hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link"},
		{"charset", "\x1b(Babc\n", "abc"},
		{"cursor", "a\x1b[2Kb\x1b[10;20Hc\n", "abc"},
		{"progress", "10%\r50%\r100%\ndone\n", "100%\ndone"},
		{"crlf", "a\r\nb\r\n", "a\nb"},
		{"no final newline", "tail", "tail"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\ok\n", "ok"},
		{"control chars", "a\x00b\x08c\n", "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOutput(15, 85, 100)
			o.Write([]byte(tt.in))
			assert.Equal(t, tt.want, o.String())
			// Any split of the input gives the same result.
			for cut := 1; cut < len(tt.in); cut++ {
				o := NewOutput(15, 85, 100)
				o.Write([]byte(tt.in[:cut]))
				o.Write([]byte(tt.in[cut:]))
				assert.Equal(t, tt.want, o.String(), "split at %d", cut)
			}
		})
	}
}

func TestOutputHeadAndTail(t *testing.T) {
	o := NewOutput(15, 85, 50)
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(o, "line %d\n", i)
	}
	s := o.String()
	lines := strings.Split(s, "\n")
	assert.Len(t, lines, 101)
	assert.Equal(t, "line 1", lines[0])
	assert.Equal(t, "line 15", lines[14])
	assert.Equal(t, "[900 lines truncated]", lines[15])
	assert.Equal(t, "line 916", lines[16])
	assert.Equal(t, "line 1000", lines[100])
	assert.Equal(t, 1000, o.Lines())
	assert.Equal(t, 900, o.Omitted())

	short := NewOutput(15, 85, 50)
	fmt.Fprint(short, "a\nb\n")
	assert.Equal(t, "a\nb", short.String())
	assert.Equal(t, 0, short.Omitted())
}

func TestOutputLongLines(t *testing.T) {
	o := NewOutput(2, 2, 10)
	o.Write([]byte(strings.Repeat("x", 25) + "\n"))
	for range 10 {
		o.Write([]byte("short\n"))
	}
	o.Write([]byte(strings.Repeat("y", 1<<20))) // no newline at all
	s := o.String()
	assert.Contains(t, s, "xxxxxxxxxx [… 15 bytes cut]\n")
	assert.Contains(t, s, "[8 lines truncated]")
	assert.True(t, strings.HasSuffix(s, "yyyyyyyyyy [… 1048566 bytes cut]"), s[len(s)-60:])
}

func FuzzOutput(f *testing.F) {
	f.Add([]byte("\x1b[31mred\x1b[0m\nline\r\nprog\r10%\x1b]633;A\x07\n"), 3)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		whole := NewOutput(3, 5, 20)
		whole.Write(data)
		parts := NewOutput(3, 5, 20)
		if split < 0 {
			split = -split
		}
		split %= len(data) + 1
		parts.Write(data[:split])
		parts.Write(data[split:])
		a, b := whole.String(), parts.String()
		if a != b {
			t.Fatalf("chunking changed output: %q vs %q", a, b)
		}
		if strings.ContainsRune(a, 0x1b) {
			t.Fatalf("escape survived: %q", a)
		}
		if n := strings.Count(a, "\n"); n > 3+5+1 {
			t.Fatalf("kept %d lines", n)
		}
	})
}
