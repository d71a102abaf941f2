package safety

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Golden files in testdata/commands/*.txt hold one case per line:
//
//	<severity>[?] <auto|no> <names|-> <command>
//
// severity is none, medium, high or critical; a trailing "?" means the
// analysis must be Unanalyzable. auto/no is CommandAnalysis.AutoApprovable.
// names is the comma-separated list of Command names in order ("-" for
// none). The command is the rest of the line, or a Go-quoted string when
// it starts with a double quote (for newlines, CR and other escapes).
// Lines starting with # are comments; they cite where a case came from.

type goldenCase struct {
	file     string
	line     int
	severity Severity
	unanal   bool
	auto     bool
	names    []string
	cmd      string
}

func loadAnalysisCases(t testing.TB) []goldenCase {
	t.Helper()
	files, err := filepath.Glob("testdata/commands/analyze_*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var out []goldenCase
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			c, err := parseGoldenLine(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			c.file, c.line = filepath.Base(f), n
			out = append(out, c)
		}
		fh.Close()
	}
	return out
}

func parseGoldenLine(line string) (goldenCase, error) {
	var c goldenCase
	f := strings.SplitN(strings.TrimSpace(line), " ", 2)
	sevText := f[0]
	if strings.HasSuffix(sevText, "?") {
		c.unanal = true
		sevText = strings.TrimSuffix(sevText, "?")
	}
	if err := c.severity.UnmarshalText([]byte(sevText)); err != nil {
		return c, err
	}
	rest := strings.TrimLeft(f[1], " ")
	f = strings.SplitN(rest, " ", 2)
	switch f[0] {
	case "auto":
		c.auto = true
	case "no":
	default:
		return c, strconv.ErrSyntax
	}
	rest = strings.TrimLeft(f[1], " ")
	f = strings.SplitN(rest, " ", 2)
	if f[0] != "-" {
		c.names = strings.Split(f[0], ",")
	}
	c.cmd = strings.TrimLeft(f[1], " ")
	if strings.HasPrefix(c.cmd, `"`) {
		s, err := strconv.Unquote(c.cmd)
		if err != nil {
			return c, err
		}
		c.cmd = s
	}
	return c, nil
}

func TestAnalyzeCommandGolden(t *testing.T) {
	cases := loadAnalysisCases(t)
	if len(cases) < 300 {
		t.Errorf("golden corpus has %d commands, want at least 300", len(cases))
	}
	for _, c := range cases {
		a := AnalyzeCommand(c.cmd)
		checkInvariants(t, c.cmd, a)
		var names []string
		for _, x := range a.Commands {
			names = append(names, x.Name)
		}
		where := c.file + ":" + strconv.Itoa(c.line)
		if a.Severity != c.severity || a.Unanalyzable != c.unanal || a.AutoApprovable() != c.auto || strings.Join(names, ",") != strings.Join(c.names, ",") {
			t.Errorf("%s: %q\n got  %s%s %s %s\n want %s%s %s %s\n reasons: %q", where, c.cmd,
				a.Severity, q(a.Unanalyzable), autoWord(a.AutoApprovable()), strings.Join(names, ","),
				c.severity, q(c.unanal), autoWord(c.auto), strings.Join(c.names, ","), a.Reasons())
		}
	}
}

func q(b bool) string {
	if b {
		return "?"
	}
	return ""
}

func autoWord(b bool) string {
	if b {
		return "auto"
	}
	return "no"
}
