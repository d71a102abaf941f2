package safety

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on path spelling. Linux allows 4095 bytes per path and 255 per name;
// anything longer cannot be a real file and is refused before any I/O so no
// length-dependent behaviour (truncation, ENAMETOOLONG half-way through a walk)
// is ever reached.
const (
	maxPathBytes = 4095
	maxNameBytes = 255
)

// checkSpelling refuses path strings that no honest caller produces and that
// are the raw material of spoofing: NUL (truncates C strings), C0/C1 controls
// (line breaks and escape sequences that rewrite what a human approves), bidi
// overrides and isolates (Trojan Source: "txt.exe" shown as "exe.txt"),
// zero-width and other invisible characters (".e\u200bnv" looks like ".env"),
// non-ASCII spaces, and invalid UTF-8. It returns "" when the spelling is fine,
// otherwise a reason that says what to fix.
func checkSpelling(p string) string {
	if p == "" {
		return `empty path; use "." for the workspace root`
	}
	if len(p) > maxPathBytes {
		return fmt.Sprintf("path is %d bytes long, the limit is %d", len(p), maxPathBytes)
	}
	for i, r := range p {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(p[i:]); size <= 1 {
				return fmt.Sprintf("invalid UTF-8 at byte %d", i)
			}
		}
		if what := forbiddenRune(r); what != "" {
			return fmt.Sprintf("contains %s %U at byte %d; paths may not contain invisible or control characters", what, r, i)
		}
	}
	if filepath.Separator == '/' && strings.ContainsRune(p, '\\') {
		// On Unix a backslash is an ordinary byte of a file name, so
		// "src\main.go" names one odd file in the root. Models that write
		// Windows paths mean something else entirely; refusing is clearer
		// than creating that file.
		return `contains a backslash; use "/" to separate directories`
	}
	for _, name := range strings.Split(filepath.ToSlash(p), "/") {
		if len(name) > maxNameBytes {
			return fmt.Sprintf("a name in the path is %d bytes long, the limit is %d", len(name), maxNameBytes)
		}
	}
	return ""
}

// forbiddenRune names the class of r when r may not appear in a path.
func forbiddenRune(r rune) string {
	switch {
	case r == 0:
		return "NUL"
	case r < 0x20 || r == 0x7f:
		return "control character"
	case r >= 0x80 && r <= 0x9f:
		return "C1 control character"
	case r == 0x2028 || r == 0x2029:
		return "line separator"
	case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c:
		return "bidi control"
	case r == 0x034f || r == 0x115f || r == 0x1160 || r == 0x17b4 || r == 0x17b5 ||
		r == 0x180e || r == 0x3164 || r == 0xffa0 || r == 0x2800 ||
		(r >= 0xfe00 && r <= 0xfe0f) || (r >= 0xe0100 && r <= 0xe01ef):
		return "invisible character"
	case unicode.Is(unicode.Cf, r):
		// Format characters: zero-width space/joiners, word joiner, soft
		// hyphen, BOM, invisible operators, tag characters, …
		return "invisible format character"
	case r != ' ' && unicode.IsSpace(r):
		return "non-ASCII space"
	case r == utf8.RuneError:
		return "replacement character"
	}
	return ""
}

// expandPath turns the spellings models and editors use into a plain OS path:
// "file://" URLs, "~" and "~/…" (the home directory; an empty home refuses
// them). "~user" is refused: it names another account's home, which an agent
// has no business reaching and which this process could only resolve by
// consulting the user database.
func expandPath(p, home string) (string, string) {
	if strings.HasPrefix(p, "file:") {
		u, err := url.Parse(p)
		if err != nil {
			return "", "malformed file URL: " + err.Error()
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Sprintf("file URL names host %q; only local files (file:///path) are accepted", u.Host)
		}
		if u.Opaque != "" || u.RawQuery != "" || u.Fragment != "" {
			return "", "file URL must be file:///absolute/path without query or fragment"
		}
		if u.Path == "" {
			return "", "file URL has no path"
		}
		// The decoded path may now hold characters the URL escaped
		// (%00, %E2%80%AE): check the spelling again.
		if why := checkSpelling(u.Path); why != "" {
			return "", "file URL decodes to a bad path: " + why
		}
		return filepath.FromSlash(u.Path), ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", "~ used but no home directory is known"
		}
		return filepath.Join(home, p[1:]), ""
	}
	if strings.HasPrefix(p, "~") {
		return "", "~user paths are not supported; use a path inside the workspace"
	}
	return filepath.FromSlash(p), ""
}
