package approval

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "npm test", "npm test"},
		{"unicode text kept", "echo héllo 日本 🚀", "echo héllo 日本 🚀"},
		{"RLO reverses display", "cat \u202etxt.exe", `cat \u202etxt.exe`},
		{"bidi isolates", "a\u2066b\u2069c\u200fd", `a\u2066b\u2069c\u200fd`},
		{"zero width space", "rm\u200b -rf", `rm\u200b -rf`},
		{"zero width joiner and BOM", "a\u200db\ufeffc", `a\u200db\ufeffc`},
		{"ANSI erase line", "ls\x1b[2K\x1b[1Gecho safe", `ls\x1b[2K\x1b[1Gecho safe`},
		{"carriage return overwrite", "rm -rf ~\recho hello", `rm -rf ~\recho hello`},
		{"newline in command", "npm test\nrm -rf ~", `npm test\nrm -rf ~`},
		{"tab", "a\tb", `a\tb`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"C1 control", "a\u0085b\u009bc", `a\u0085b\u009bc`},
		{"no-break space", "rm\u00a0-rf", `rm\u00a0-rf`},
		{"ideographic space", "a\u3000b", `a\u3000b`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"soft hyphen", "pass\u00adwd", `pass\u00adwd`},
		{"hangul filler", "a\u3164b", `a\u3164b`},
		{"variation selector", "a\ufe0fb", `a\ufe0fb`},
		{"tag characters", "x\U000e0041y", `x\U000e0041y`},
		{"private use", "a\ue000b", `a\ue000b`},
		{"invalid utf8", "a\xffb\xc3", `a\xffb\xc3`},
		{"backslash text kept as is", `printf '\n'`, `printf '\n'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Escape(tt.in)
			if got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Escape(%q) is not valid UTF-8", tt.in)
			}
			if strings.ContainsAny(got, "\x1b\r\n\u202e\u200b") {
				t.Errorf("Escape(%q) = %q still contains a dangerous character", tt.in, got)
			}
		})
	}
}

func TestEscapeMultilineKeepsLayout(t *testing.T) {
	in := "@@ -1 +1 @@\n-\told\r\n+new\u202e\x1b[31m\n"
	want := "@@ -1 +1 @@\n-\told\\r\n+new\\u202e\\x1b[31m\n"
	if got := EscapeMultiline(in); got != want {
		t.Errorf("EscapeMultiline = %q, want %q", got, want)
	}
}

func TestDisplayFlagsEscapedSubject(t *testing.T) {
	honest := Request{Kind: KindCommand, ToolName: "run_terminal_command", Command: "go test ./..."}
	if d := honest.Display(); d.Escaped || d.Subject != honest.Command {
		t.Errorf("honest command display = %+v", d)
	}
	spoof := Request{
		Kind: KindCommand, ToolName: "run_terminal_command",
		Command: "echo ok #\u202e\x1b[2K\r rm -rf ~",
		Reasons: []string{"reason with \x1b[31mcolour"},
		Diff:    "+a\u200bb\n",
	}
	d := spoof.Display()
	if !d.Escaped {
		t.Error("spoofed command not flagged as escaped")
	}
	if want := `echo ok #\u202e\x1b[2K\r rm -rf ~`; d.Subject != want {
		t.Errorf("Subject = %q, want %q", d.Subject, want)
	}
	if d.Reasons[0] != `reason with \x1b[31mcolour` {
		t.Errorf("Reasons[0] = %q", d.Reasons[0])
	}
	if d.Diff != "+a\\u200bb\n" {
		t.Errorf("Diff = %q", d.Diff)
	}
	if !strings.Contains(d.Rule, `\u202e`) || strings.Contains(d.Rule, "\u202e") {
		t.Errorf("Rule not escaped: %q", d.Rule)
	}
	if spoof.Command != "echo ok #\u202e\x1b[2K\r rm -rf ~" {
		t.Error("Display changed the request's bytes")
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"ls", "a\u202eb", "\x1b[0m", "\xff\xfe", "x\r\ny", "\U000e0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, multiline := range []bool{false, true} {
			got := escape(s, multiline)
			if !utf8.ValidString(got) {
				t.Fatalf("escape(%q) = %q: invalid UTF-8", s, got)
			}
			for i, r := range got {
				if needsEscape(r, utf8.RuneLen(r), multiline) {
					t.Fatalf("escape(%q) = %q: unescaped %U at %d", s, got, r, i)
				}
			}
		}
	})
}

func BenchmarkEscape(b *testing.B) {
	clean := strings.Repeat("go test ./... -run TestX ", 8)
	dirty := strings.Repeat("go test \u202e./...\x1b[0m ", 8)
	b.Run("clean", func(b *testing.B) {
		b.SetBytes(int64(len(clean)))
		b.ReportAllocs()
		for b.Loop() {
			_ = Escape(clean)
		}
	})
	b.Run("dirty", func(b *testing.B) {
		b.SetBytes(int64(len(dirty)))
		b.ReportAllocs()
		for b.Loop() {
			_ = Escape(dirty)
		}
	})
}
