package safety

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func policyWorkspace(t *testing.T) (*Workspace, string, string) {
	t.Helper()
	w, root, outside := newTestWorkspace(t)
	writeFile(t, filepath.Join(root, ".env"), "TOKEN=1")
	writeFile(t, filepath.Join(root, "notes.txt"), "notes")
	writeFile(t, filepath.Join(root, "sub/.env.local"), "K=V")
	writeFile(t, filepath.Join(root, "sub/code.go"), "package sub")
	writeFile(t, filepath.Join(root, ".git/config"), "[core]")
	writeFile(t, filepath.Join(outside, "secret"), "s")
	if err := os.Symlink(".env", filepath.Join(root, "innocent")); err != nil {
		t.Fatal(err)
	}
	return w, root, outside
}

func TestPolicyCommands(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	rules := CommandRules{Allow: []string{"ls", "cat", "echo", "git status", "grep", "cd", "head", "rg", "tar", "cp"}, Deny: []string{"curl"}}
	for _, tc := range []struct {
		cmd, dir string
		want     Decision
		mention  string // a reason must contain this
	}{
		{"ls -la", "", Allow, `allowed by rule "ls"`},
		{"cat notes.txt", "", Allow, "allowed"},
		{"git status && ls", "", Allow, "allowed"},
		{"cat .env", "", Confirm, "cat reads .env"},
		{"cat ./.ENV", "", Confirm, "may hold secrets"},
		{"cat innocent", "", Confirm, "resolves to .env"},
		{"cat .e*", "", Confirm, "may hold secrets"},
		{"head -n1 sub/.env.local", "", Confirm, ".env.local"},
		{"grep TOKEN -r . .env", "", Confirm, ".env"},
		{"cat .env.local", "sub", Confirm, ".env.local"},
		{"cd sub && cat .env.local", "", Confirm, ".env.local"},
		{"cat ../outside/secret", "", Confirm, "outside the workspace"},
		{"cat ~/outside/secret", "", Confirm, "outside the workspace"},
		{"echo hi > notes.txt", "", Confirm, "no rule can approve"},
		{"echo x > .git/config", "", Confirm, ".git/config"},
		{"cat .git/config", "", Allow, "allowed"},
		{"ls", "sub", Allow, "allowed"},
		{"ls", "../outside", Deny, "outside the workspace"},
		{"ls", "missing", Deny, "does not exist"},
		{"ls", ".git", Confirm, "working directory"},
		{"curl https://example.com", "", Deny, `denied by rule "curl"`},
		{"rm -rf /", "", Confirm, "critical"},
		{"npm publish", "", Confirm, "no allow rule"},
		{"cat < /dev/null 2>&1", "", Allow, "allowed"},
		{`f=.env; cat "$f"`, "", Confirm, "named only at run time"},
		{"cat $(echo .env)", "", Confirm, "named only at run time"},
		{"echo $HOME $(ls)", "", Allow, "allowed"},
		{"cat .en?", "", Confirm, "may hold secrets"},
		{"cat .[e]nv", "", Confirm, "may hold secrets"},
		{`cat .e"nv"`, "", Confirm, "may hold secrets"},
		{"cat {notes.txt,.env}", "", Confirm, "may hold secrets"},
		{"grep -rn TOKEN", "", Confirm, "grep reads everything under ., including .env"},
		{"grep -r TOKEN .", "", Confirm, "including .env"},
		{"grep -R TOKEN sub", "", Confirm, "including sub/.env.local"},
		{"grep TOKEN notes.txt", "", Allow, "allowed"},
		{"grep -r TOKEN sub/code.go", "", Allow, "allowed"},
		{"grep -r -e TOKEN .git", "", Allow, "allowed"},
		{"ls -R", "", Allow, "allowed"},
		{"cd not-yet-made && ls", "", Allow, "allowed"},
		{"cd ../outside && ls", "", Confirm, "cd changes into ../outside"},
	} {
		p := &Policy{Workspace: w, Rules: rules}
		a := p.AssessCommand(context.Background(), tc.cmd, tc.dir)
		if a.Decision != tc.want || !strings.Contains(a.Reason(), tc.mention) {
			t.Errorf("AssessCommand(%q in %q) = %v, want %v mentioning %q\nreasons: %s", tc.cmd, tc.dir, a.Decision, tc.want, tc.mention, a.Reason())
		}
		if a.Command == nil || a.Command.Analysis.Input != tc.cmd {
			t.Errorf("AssessCommand(%q): verdict missing", tc.cmd)
		}
	}
}

// The deciding reason comes first, so a one-line prompt shows why.
func TestRecursiveReads(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"grep -rn TOKEN", []string{"."}},
		{"grep -r TOKEN a b", []string{"a", "b"}},
		{"grep -r -e TOKEN a", []string{"a"}},
		{"grep --recursive TOKEN", []string{"."}},
		{"grep TOKEN a", nil},
		{"rg TOKEN", nil},
		{"rg --hidden TOKEN src", []string{"src"}},
		{"rg -uu TOKEN", []string{"."}},
		{"cp -a src /tmp/x", []string{"src", "/tmp/x"}},
		{"cp a b", nil},
		{"tar czf /tmp/a.tgz .", []string{"/tmp/a.tgz", "."}},
		{"tar -cf out.tar dir", []string{"dir"}},
		{"grep -r -m 5 TOKEN", []string{"."}},
		{"grep -rA3 TOKEN src", []string{"src"}},
		{"rsync -a -e ssh src host:/x", []string{"src", "host:/x"}},
		{"tar -xf a.tar", nil},
		{"zip -r a.zip .", []string{"a.zip", "."}},
		{"rsync -av . host:/x", []string{".", "host:/x"}},
	} {
		a := AnalyzeCommand(tc.cmd)
		if len(a.Commands) == 0 {
			t.Fatalf("%q: no commands", tc.cmd)
		}
		if got := recursiveReads(a.Commands[0]); !slices.Equal(got, tc.want) {
			t.Errorf("recursiveReads(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestPolicyRecursiveReaders(t *testing.T) {
	w, root, _ := policyWorkspace(t)
	p := &Policy{Workspace: w, Rules: CommandRules{Allow: []string{"grep", "rg", "tar", "cp", "zip"}}}
	ctx := context.Background()
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"rg TOKEN", Allow}, // rg skips hidden files
		{"rg --hidden TOKEN", Confirm},
		{"tar czf ../backup.tgz .", Confirm},
		{"cp -r sub ../copy", Confirm},
	} {
		if a := p.AssessCommand(ctx, tc.cmd, ""); a.Decision != tc.want {
			t.Errorf("AssessCommand(%q) = %v, want %v: %s", tc.cmd, a.Decision, tc.want, a.Reason())
		}
	}
	// A symlink to a secret counts; too large a tree cannot be cleared.
	os.MkdirAll(filepath.Join(root, "clean/deep"), 0o755)
	if a := p.AssessCommand(ctx, "grep -r x clean", ""); a.Decision != Allow {
		t.Errorf("clean tree: %v %s", a.Decision, a.Reason())
	}
	os.Symlink("../../.env", filepath.Join(root, "clean/deep/cfg"))
	if a := p.AssessCommand(ctx, "grep -r x clean", ""); a.Decision != Confirm || !strings.Contains(a.Reason(), "clean/deep/cfg") {
		t.Errorf("symlink to secret: %v %s", a.Decision, a.Reason())
	}
	os.Remove(filepath.Join(root, "clean/deep/cfg"))
	p.SecretScanLimit = 50
	for i := range 50 {
		os.WriteFile(filepath.Join(root, "clean/deep", strconv.Itoa(i)), nil, 0o644)
	}
	if a := p.AssessCommand(ctx, "grep -r x clean", ""); a.Decision != Confirm || !strings.Contains(a.Reason(), "too many") {
		t.Errorf("huge tree: %v %s", a.Decision, a.Reason())
	}
}

func TestPolicyReasonOrder(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	p := &Policy{Workspace: w, Rules: CommandRules{Allow: []string{"cat", "ls"}}}
	a := p.AssessCommand(context.Background(), "ls; cat .env", "")
	if a.Decision != Confirm || !strings.Contains(a.Reasons[0], ".env") {
		t.Errorf("first reason %q should name .env; all: %v", a.Reasons[0], a.Reasons)
	}
}

func TestPolicyHeadlessAndCritical(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	ctx := context.Background()
	p := &Policy{Workspace: w, Rules: CommandRules{Allow: []string{"cat", "ls"}}, Headless: true}
	if a := p.AssessCommand(ctx, "cat .env", ""); a.Decision != Deny || !a.Headless || a.RiskLevel() != "deny" ||
		!strings.Contains(a.Reasons[0], "headless") {
		t.Errorf("headless confirm = %+v", a)
	}
	if a := p.AssessCommand(ctx, "ls", ""); a.Decision != Allow || a.Headless || a.RiskLevel() != "none" {
		t.Errorf("headless allow = %+v", a)
	}
	if a := p.AssessFile(ctx, "notes.txt", OpWrite); a.Decision != Allow {
		t.Errorf("headless plain write = %+v", a)
	}
	if a := p.AssessFile(ctx, ".env", OpWrite); a.Decision != Deny {
		t.Errorf("headless sensitive write = %+v", a)
	}

	p = &Policy{Workspace: w, DenyCritical: true}
	if a := p.AssessCommand(ctx, "rm -rf ~", ""); a.Decision != Deny || a.Severity != SeverityCritical {
		t.Errorf("DenyCritical: %+v", a)
	}
	p = &Policy{Workspace: w}
	if a := p.AssessCommand(ctx, "rm -rf ~", ""); a.Decision != Confirm || a.RiskLevel() != "confirm" {
		t.Errorf("critical without DenyCritical: %+v", a)
	}
}

func TestPolicyFiles(t *testing.T) {
	w, root, outside := policyWorkspace(t)
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(root, "twin")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		path      string
		op        Op
		autoEdits bool
		want      Decision
	}{
		{"notes.txt", OpRead, false, Allow},
		{"notes.txt", OpWrite, false, Allow},
		{".env", OpRead, false, Confirm},
		{".env", OpWrite, false, Confirm},
		{".git/config", OpRead, false, Allow},
		{".git/config", OpWrite, false, Confirm},
		{".git/config", OpWrite, true, Allow},
		{".env", OpRead, true, Confirm}, // reading secrets is never auto-approved
		{"twin", OpWrite, true, Confirm},
		{"../outside/secret", OpRead, false, Deny},
		{"/etc/passwd", OpRead, false, Deny},
		{"a\u202e.txt", OpWrite, false, Deny},
	} {
		p := &Policy{Workspace: w, AutoApproveSensitiveEdits: tc.autoEdits}
		if a := p.AssessFile(ctx, tc.path, tc.op); a.Decision != tc.want || len(a.Paths) != 1 {
			t.Errorf("AssessFile(%q, %v, autoEdits=%v) = %v (%s), want %v", tc.path, tc.op, tc.autoEdits, a.Decision, a.Reason(), tc.want)
		}
	}
	// A rename is judged on both ends.
	p := &Policy{Workspace: w}
	a := p.Assess(ctx, Action{Tool: "rename", Paths: []PathOp{{"notes.txt", OpWrite}, {".env", OpWrite}}})
	if a.Decision != Confirm || len(a.Paths) != 2 {
		t.Errorf("rename onto .env = %+v", a)
	}
}

func TestPolicyWithoutWorkspace(t *testing.T) {
	ctx := context.Background()
	var p Policy
	if a := p.AssessFile(ctx, "x", OpRead); a.Decision != Deny || !strings.Contains(a.Reason(), "no workspace") {
		t.Errorf("zero Policy file action = %+v", a)
	}
	p.Rules.Allow = []string{"ls", "cat"}
	if a := p.AssessCommand(ctx, "ls", ""); a.Decision != Allow {
		t.Errorf("zero-workspace ls = %+v", a)
	}
	if a := p.AssessCommand(ctx, "cat x", ""); a.Decision != Confirm || !strings.Contains(a.Reason(), "cannot be checked") {
		t.Errorf("zero-workspace cat x = %+v", a)
	}
	for _, a := range []Action{{}, {Command: "ls", Paths: []PathOp{{"x", OpRead}}}} {
		if got := p.Assess(ctx, a); got.Decision != Deny {
			t.Errorf("Assess(%+v) = %v, want deny", a, got.Decision)
		}
	}
}

func TestPolicyLogsDecisions(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	var buf bytes.Buffer
	p := &Policy{Workspace: w, Logger: slog.New(slog.NewJSONHandler(&buf, nil)), Headless: true}
	p.Assess(context.Background(), Action{Tool: "read_file", Paths: []PathOp{{".env", OpRead}}})
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("log: %v: %s", err, buf.Bytes())
	}
	if rec["level"] != "WARN" || rec["decision"] != "deny" || rec["risk_level"] != "deny" || rec["tool"] != "read_file" || rec["read"] != ".env" {
		t.Errorf("log record = %v", rec)
	}
}

func TestAssessmentJSON(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	p := &Policy{Workspace: w, Rules: CommandRules{Allow: []string{"cat"}}}
	b, err := json.Marshal(p.AssessCommand(context.Background(), "cat .env", ""))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Decision string `json:"decision"`
		Severity string `json:"severity"`
		Paths    []struct {
			Rel    string `json:"rel"`
			Secret bool   `json:"secret"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Decision != "confirm" || got.Severity != "none" || len(got.Paths) != 2 || got.Paths[1].Rel != ".env" || !got.Paths[1].Secret {
		t.Errorf("JSON = %s", b)
	}
}

func BenchmarkPolicyAssessCommand(b *testing.B) {
	w := fuzzWorkspace(b, b.TempDir())
	p := &Policy{Workspace: w, Rules: CommandRules{Allow: []string{"cat", "grep", "ls"}}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p.AssessCommand(ctx, "grep -n foo src/pkg/a.go | head -5 && ls src", "")
	}
}
