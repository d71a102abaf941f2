package safety

import (
	"strings"
	"testing"
)

var typicalCommands = []string{
	"ls -la",
	"git status",
	"go test ./...",
	"npm run build && npm test",
	"grep -rn TODO src | head -20",
	"cd web && npm ci && npm run lint -- --fix",
	"find . -name '*.go' -not -path './vendor/*' | xargs wc -l",
	"git log --oneline -n 20 --author=\"$(git config user.name)\"",
}

// BenchmarkAnalyzeCommand measures the commands agents typically run.
func BenchmarkAnalyzeCommand(b *testing.B) {
	for _, c := range typicalCommands {
		b.Run(benchName(c), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c)))
			for b.Loop() {
				AnalyzeCommand(c)
			}
		})
	}
}

// BenchmarkAnalyzeCommandLarge analyses a 100 KB command line: a long
// chain of ordinary commands with quoting, substitutions and redirects,
// the shape a model or an attacker could send. Goal: under 50 ms.
func BenchmarkAnalyzeCommandLarge(b *testing.B) {
	for _, tc := range []struct{ name, cmd string }{
		{"chain", largeCommand(100 << 10)},
		{"one-word", "echo " + strings.Repeat("a", 100<<10)},
		{"nested-subst", nestedSubst(100 << 10)},
		{"braces", "echo " + strings.Repeat("{a,b}", 20<<10)},
		{"deep-nesting", strings.Repeat("$(", 100<<10/3) + "ls" + strings.Repeat(")", 100<<10/3)},
		{"wrapper-chain", strings.Repeat("nohup ", 100<<10/6) + "ls"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.cmd)))
			for b.Loop() {
				AnalyzeCommand(tc.cmd)
			}
		})
	}
}

func BenchmarkEvaluate(b *testing.B) {
	r := CommandRules{Allow: []string{"ls", "git status", "git log", "go test", "npm run", "grep", "head", "cd"}, Deny: []string{"rm -rf"}, Ask: []string{"git push"}}
	b.ReportAllocs()
	for b.Loop() {
		r.Evaluate("cd web && npm run build && git status | head")
	}
}

func largeCommand(n int) string {
	var sb strings.Builder
	parts := []string{"ls -la src", "git status --short", "grep -rn 'TODO' . | head -5", "echo \"$(date) done\" >> log.txt", "cat README.md | wc -l"}
	for i := 0; sb.Len() < n; i++ {
		if i > 0 {
			sb.WriteString(" && ")
		}
		sb.WriteString(parts[i%len(parts)])
	}
	return sb.String()
}

func nestedSubst(n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString("echo $(echo $(echo \"$(ls)\")); ")
	}
	return sb.String()
}

func benchName(s string) string {
	if len(s) > 24 {
		s = s[:24]
	}
	return strings.NewReplacer(" ", "_", "/", "_").Replace(s)
}

// TestLargeCommandAnalysedCompletely shows that no length cap skips a
// check: a dangerous command at the end of 100 KB is still found.
func TestLargeCommandAnalysedCompletely(t *testing.T) {
	cmd := largeCommand(100<<10) + " && rm -rf ~"
	a := AnalyzeCommand(cmd)
	if a.Severity != SeverityCritical {
		t.Fatalf("severity %s, want critical", a.Severity)
	}
	if last := a.Commands[len(a.Commands)-1]; last.Name != "rm" {
		t.Fatalf("last command %q, want rm", last.Name)
	}
}
