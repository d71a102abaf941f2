package safety

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// blindCase is one line of testdata/commands/blind_round6.txt.
type blindCase struct {
	line     int
	rules    CommandRules
	want     Decision
	minSev   Severity
	cmd      string // a command, or the path of a file case
	file     bool
	op       Op
	everyday bool
}

// loadBlind reads a blind batch: rule lines accumulate until "---",
// every other line is a case (see blind_round6.txt's header).
func loadBlind(t *testing.T, name string) []blindCase {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rules CommandRules
	var out []blindCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		key, rest, _ := strings.Cut(line, " ")
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case line == "---":
			rules = CommandRules{}
		case key == "allow:":
			rules.Allow = append(rules.Allow, rest)
		case key == "ask:":
			rules.Ask = append(rules.Ask, rest)
		case key == "deny:":
			rules.Deny = append(rules.Deny, rest)
		case key == "readonly:":
			rules.AllowReadOnly = rest == "true"
		case key == "file":
			opText, rest, _ := strings.Cut(rest, " ")
			want, path, _ := strings.Cut(rest, " ")
			c := blindCase{line: n, rules: rules, cmd: path, file: true, op: OpRead}
			if opText == "write" {
				c.op = OpWrite
			}
			if err := c.want.UnmarshalText([]byte(want)); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			out = append(out, c)
		default:
			sev, cmd, _ := strings.Cut(rest, " ")
			c := blindCase{line: n, rules: rules, cmd: cmd}
			if err := c.want.UnmarshalText([]byte(key)); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			if sev != "-" {
				if err := c.minSev.UnmarshalText([]byte(sev)); err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
			}
			if strings.HasPrefix(cmd, `"`) {
				if c.cmd, err = strconv.Unquote(cmd); err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
			}
			c.everyday = c.want == Allow
			out = append(out, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBlindRound6 runs the blind batch of issue 25 and reports its score:
// the bypass cases (expected confirm or deny) and the everyday cases
// (expected allow) separately.
func TestBlindRound6(t *testing.T) {
	runBlind(t, "testdata/commands/blind_round6.txt", 80, 40)
}

// runBlind runs the cases of a blind batch through the policy and logs
// its score; it fails on any case that does not hold and when the batch
// has fewer than minBypass bypass or minEveryday everyday cases.
func runBlind(t *testing.T, name string, minBypass, minEveryday int) {
	cases := loadBlind(t, name)
	w, root, outside := policyWorkspace(t)
	writeFile(t, filepath.Join(root, ".git/config"), "[core]\n\thooksPath = .githooks\n")
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(root, "linked.txt")); err != nil {
		t.Skipf("hard links unsupported here: %v", err)
	}
	var bypass, everyday, bypassOK, everydayOK int
	for _, c := range cases {
		p := &Policy{Workspace: w, Rules: c.rules}
		var got Decision
		var why string
		sevOK := true
		if c.file {
			a := p.AssessFile(context.Background(), c.cmd, c.op)
			got, why = a.Decision, a.Reason()
		} else {
			a := p.AssessCommand(context.Background(), c.cmd, "")
			got, why = a.Decision, a.Reason()
			if sev := AnalyzeCommand(c.cmd).Severity; sev < c.minSev {
				sevOK = false
				why = "severity " + sev.String() + "; " + why
			}
		}
		ok := got == c.want && sevOK
		if c.everyday {
			everyday++
		} else {
			bypass++
		}
		switch {
		case ok && c.everyday:
			everydayOK++
		case ok:
			bypassOK++
		default:
			t.Errorf("%s:%d: %q: got %v, want %v (severity ≥ %v)\n  %s", filepath.Base(name), c.line, c.cmd, got, c.want, c.minSev, why)
		}
	}
	if bypass < minBypass || everyday < minEveryday {
		t.Errorf("blind batch has %d bypass and %d everyday cases, want at least %d and %d", bypass, everyday, minBypass, minEveryday)
	}
	t.Logf("%s: bypass %d/%d held, everyday %d/%d allowed", filepath.Base(name), bypassOK, bypass, everydayOK, everyday)
}
