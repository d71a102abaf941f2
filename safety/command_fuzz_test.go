package safety

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzAnalyzeCommand checks the invariants every analysis must keep, on
// any input: no panic, indices in range, severity the maximum of the
// concerns, unanalysable at least high, and rules never auto-approving
// what the analysis forbids.
//
//	go test -run XXX -fuzz '^FuzzAnalyzeCommand$' -fuzztime 5m -fuzzminimizetime 5s ./safety
//
// The short -fuzzminimizetime matters: the engine minimises every new
// interesting input for up to a minute by default, re-running the whole
// analysis on each shortened command, and reports 0 execs/sec meanwhile,
// which looks like a hang but is not.
func FuzzAnalyzeCommand(f *testing.F) {
	for _, c := range loadAnalysisCases(f) {
		f.Add(c.cmd)
	}
	for _, s := range []string{"", " ", "\x00", "\r\n", "$'\\x00'", "{a,{b,{c,d}}}", "a=(1 2); ${a[$(rm -rf ~)]}", "<<<", "$((", "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		// A pathological input must not stall the analyser: report it
		// as a failure rather than letting the fuzzer hang.
		done := make(chan CommandAnalysis, 1)
		go func() { done <- AnalyzeCommand(cmd) }()
		var a CommandAnalysis
		select {
		case a = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("AnalyzeCommand(%q) took more than 5s", cmd)
		}
		checkInvariants(t, cmd, a)
		for _, c := range a.Concerns {
			if strings.HasPrefix(c.Reason, errInternal) {
				t.Fatalf("AnalyzeCommand(%q) panicked: %s", cmd, c.Reason)
			}
		}
		v := CommandRules{Allow: []string{"*"}}.Evaluate(cmd)
		if v.AutoApproved && !a.AutoApprovable() {
			t.Fatalf("%q auto-approved although the analysis forbids it: %q", cmd, a.Reasons())
		}
		if v.AutoApproved && a.Severity >= SeverityCritical {
			t.Fatalf("%q: critical auto-approved", cmd)
		}
		for _, c := range a.Commands {
			if v.AutoApproved && len(c.Unvetted) > 0 {
				t.Fatalf("%q: approved by \"*\" despite unvetted %q", cmd, c.Unvetted)
			}
		}
	})
}

func checkInvariants(t *testing.T, cmd string, a CommandAnalysis) {
	t.Helper()
	sev := SeverityNone
	for _, c := range a.Concerns {
		if c.Command < -1 || c.Command >= len(a.Commands) {
			t.Fatalf("%q: concern index %d out of range", cmd, c.Command)
		}
		sev = max(sev, c.Severity)
		if c.Reason == "" {
			t.Fatalf("%q: empty reason", cmd)
		}
		// Every concern names its effect; the effect sets the least
		// severity of the concern, and is listed on the command the
		// concern is about (a concern about the whole line has none).
		if _, err := ParseEffect(string(c.Effect)); err != nil {
			t.Fatalf("%q: concern %q has effect %q, not one of the vocabulary", cmd, c.Reason, c.Effect)
		}
		if c.Severity < c.Effect.Severity() {
			t.Fatalf("%q: concern %q rated %s, below its effect %s (%s)", cmd, c.Reason, c.Severity, c.Effect, c.Effect.Severity())
		}
		if c.Command >= 0 && !slices.Contains(a.Commands[c.Command].Effects, c.Effect) {
			t.Fatalf("%q: effect %s of concern %q not listed on its command", cmd, c.Effect, c.Reason)
		}
	}
	if a.Unanalyzable {
		sev = max(sev, SeverityHigh)
	}
	if sev != a.Severity {
		t.Fatalf("%q: severity %s, concerns say %s", cmd, a.Severity, sev)
	}
	for i, c := range a.Commands {
		if c.Parent < -1 || c.Parent >= i {
			t.Fatalf("%q: command %d has parent %d", cmd, i, c.Parent)
		}
		if c.Severity > a.Severity {
			t.Fatalf("%q: command %d more severe than the line", cmd, i)
		}
	}
	for _, p := range a.Paths {
		if p.Command < -1 || p.Command >= len(a.Commands) {
			t.Fatalf("%q: path index %d out of range", cmd, p.Command)
		}
	}
	if strings.ContainsRune(cmd, 0) && !a.Unanalyzable {
		t.Fatalf("%q: NUL accepted", cmd)
	}
	if !utf8.ValidString(cmd) {
		return
	}
}
