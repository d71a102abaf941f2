package approval

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Display is a request as a person should see it. Every string is safe to put
// in a terminal or an HTML text node: control characters (including ESC, so no
// ANSI sequence can redraw the screen, and CR, so no text can be overwritten),
// bidirectional overrides (so "txt.exe" cannot read as "exe.txt"), zero-width
// and other invisible characters, non-ASCII spaces and invalid UTF-8 are shown
// as Go-style escapes such as \x1b, \r, \u202e or \xff.
//
// Backslashes themselves are not doubled, so a command that literally contains
// the text `\u202e` looks like one containing the character; Escaped tells the
// two apart, and such text can only make a command look more suspicious,
// never less.
type Display struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	ToolName string   `json:"tool_name,omitempty"`
	Subject  string   `json:"subject"` // the command, path or summary, on one line
	Severity string   `json:"severity"`
	Reasons  []string `json:"reasons,omitempty"`
	Diff     string   `json:"diff,omitempty"` // multi-line; newlines and tabs kept, everything else escaped
	Rule     string   `json:"rule"`           // what "allow for this session" would grant
	// Escaped is true when the subject or tool name contained characters that
	// had to be escaped. A UI should call it out: honest commands rarely do.
	Escaped bool `json:"escaped"`
}

// Display returns the request in its display form.
func (r Request) Display() Display {
	subject := Escape(r.Subject())
	tool := Escape(r.ToolName)
	d := Display{
		ID:       Escape(r.ID),
		Kind:     r.Kind.String(),
		ToolName: tool,
		Subject:  subject,
		Severity: r.Severity.String(),
		Diff:     EscapeMultiline(r.Diff),
		Rule:     r.Rule().String(),
		Escaped:  subject != r.Subject() || tool != r.ToolName,
	}
	for _, reason := range r.Reasons {
		d.Reasons = append(d.Reasons, Escape(reason))
	}
	return d
}

// Escape returns s on one line with every character that is not plainly
// visible replaced by an escape (see Display). Printable text, including
// non-Latin scripts and emoji, is kept as it is.
func Escape(s string) string { return escape(s, false) }

// EscapeMultiline is Escape for text such as diffs: it keeps newlines and
// tabs and escapes everything else Escape does, including a CR before a
// newline, so a CRLF file shows its \r honestly.
func EscapeMultiline(s string) string { return escape(s, true) }

func escape(s string, multiline bool) string {
	// Fast path: nothing to escape, no allocation.
	i := 0
	for i < len(s) {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++ // printable ASCII: no need to decode
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size, multiline) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !needsEscape(r, size, multiline) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		if r == utf8.RuneError && size <= 1 {
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
			i++
			continue
		}
		b.WriteString(escapeRune(r))
		i += size
	}
	return b.String()
}

func needsEscape(r rune, size int, multiline bool) bool {
	if r == utf8.RuneError && size <= 1 {
		return true // invalid UTF-8
	}
	if r >= 0x20 && r < 0x7f {
		return false // printable ASCII, the common case
	}
	if multiline && (r == '\n' || r == '\t') {
		return false
	}
	if r == ' ' {
		return false
	}
	// unicode.IsPrint excludes controls (Cc), format characters (Cf: bidi
	// controls, zero-width joiners, BOM, tag characters), private use,
	// surrogates, unassigned code points and every space but U+0020.
	if !unicode.IsPrint(r) {
		return true
	}
	return invisible(r)
}

// invisible lists printable-category characters that render as nothing or as
// blank space and so can hide text: fillers, blank letters, variation
// selectors and combining marks with no glyph.
func invisible(r rune) bool {
	switch {
	case r == 0x034F, // combining grapheme joiner
		r == 0x115F, r == 0x1160, // Hangul choseong/jungseong fillers
		r == 0x17B4, r == 0x17B5, // Khmer inherent vowels
		r >= 0x180B && r <= 0x180F, // Mongolian variation selectors and vowel separator
		r == 0x2800,                // Braille blank
		r == 0x3164,                // Hangul filler
		r == 0xFFA0,                // halfwidth Hangul filler
		r >= 0xFE00 && r <= 0xFE0F, // variation selectors
		r >= 0xE0100 && r <= 0xE01EF,
		r >= 0x1D173 && r <= 0x1D17A: // musical symbol format characters
		return true
	}
	return false
}

func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	switch {
	case r < 0x80:
		return `\x` + hex2(byte(r))
	case r <= 0xFFFF:
		return `\u` + pad(strconv.FormatInt(int64(r), 16), 4)
	default:
		return `\U` + pad(strconv.FormatInt(int64(r), 16), 8)
	}
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&0xf]})
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// quoteDisplay wraps an escaped string in backquotes for messages.
func quoteDisplay(s string) string { return "`" + Escape(s) + "`" }
