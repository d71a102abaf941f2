package safety

import (
	"slices"
	"strings"
	"testing"
)

func TestSensitivityFloorCannotBeLoosened(t *testing.T) {
	s, err := NewSensitivity(
		SensitivityRule{Pattern: ".env", Sensitive: false},
		SensitivityRule{Pattern: "**", Sensitive: false},
		SensitivityRule{Pattern: ".git/**", Sensitive: false},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".env", ".git/config", "id_rsa", ".vscode/tasks.json"} {
		m := s.Match(p)
		if !m.Sensitive || !m.Builtin {
			t.Errorf("Match(%q) = %+v: a project rule loosened the built-in floor", p, m)
		}
	}
	if m := s.Match("main.go"); m.Sensitive || m.Pattern != "**" {
		t.Errorf("Match(main.go) = %+v, want the project rule ** saying not sensitive", m)
	}
}

func TestSensitivityLastMatchWins(t *testing.T) {
	s, err := NewSensitivity(
		SensitivityRule{Pattern: "docs/**", Sensitive: true},
		SensitivityRule{Pattern: "docs/public/**", Sensitive: false},
		SensitivityRule{Pattern: "docs/public/keys.txt", Secret: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path              string
		sensitive, secret bool
		pattern           string
	}{
		{"docs/a.md", true, false, "docs/**"},
		{"DOCS/A.MD", true, false, "docs/**"},
		{"docs/public/a.md", false, false, "docs/public/**"},
		{"docs/public/keys.txt", true, true, "docs/public/keys.txt"},
		{"src/docs/a.md", false, false, ""},
		{"docs", true, false, "docs/**"},
	} {
		m := s.Match(tc.path)
		if m.Sensitive != tc.sensitive || m.Secret != tc.secret || m.Pattern != tc.pattern {
			t.Errorf("Match(%q) = %+v, want sensitive=%v secret=%v pattern=%q", tc.path, m, tc.sensitive, tc.secret, tc.pattern)
		}
	}
}

func TestSensitivityPatternForms(t *testing.T) {
	s, err := NewSensitivity(
		SensitivityRule{Pattern: "secrets", Sensitive: true},       // name at any depth, covers contents
		SensitivityRule{Pattern: "/Makefile", Sensitive: true},     // anchored
		SensitivityRule{Pattern: "build/", Sensitive: true},        // directory
		SensitivityRule{Pattern: "*.{crt,csr}", Sensitive: true},   // braces
		SensitivityRule{Pattern: "config/*.yaml", Sensitive: true}, // anchored by its slash
	)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"secrets": true, "a/secrets/b/c.txt": true, "secretsx": false,
		"Makefile": true, "sub/Makefile": false,
		"build/out.bin": true, "build": true,
		"certs/site.CRT": true, "req.csr": true, "x.crtx": false,
		"config/app.yaml": true, "config/sub/app.yaml": false, "x/config/app.yaml": false,
	} {
		if got := s.Sensitive(path); got != want {
			t.Errorf("Sensitive(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestSensitivitySpellings(t *testing.T) {
	var s *Sensitivity // nil: the floor alone
	for _, p := range []string{
		".env", ".ENV", ".env.", ".env..", ".env ", ".env . .", ".env::$DATA", ".env:$DATA", ".env:zone.identifier",
		"/abs/path/.env", "./.env", "a//.env", "a/./b/../.env", `sub\.env`,
		".GIT/CONFIG", ".git./hooks/pre-commit", "Id_Rsa", "KEY.PEM", ".VsCode/settings.json",
	} {
		if !s.Sensitive(p) {
			t.Errorf("Sensitive(%q) = false", p)
		}
	}
	for _, p := range []string{"env", "main.go", "readme.md", "x.envelope.go", "docs/.github/README.md", "...", ".", "a:b"} {
		if s.Sensitive(p) {
			t.Errorf("Sensitive(%q) = true: %s", p, s.Match(p).Reason())
		}
	}
}

func TestNeedsApproval(t *testing.T) {
	var s *Sensitivity
	for _, tc := range []struct {
		path          string
		read, write   bool
		reasonMention string
	}{
		{".env", true, true, "may hold secrets"},
		{".vscode/settings.json", false, true, "sensitive"},
		{"main.go", false, false, "no sensitivity rule"},
	} {
		if got := s.NeedsApproval(tc.path, OpRead); got != tc.read {
			t.Errorf("NeedsApproval(%q, read) = %v", tc.path, got)
		}
		if got := s.NeedsApproval(tc.path, OpWrite); got != tc.write {
			t.Errorf("NeedsApproval(%q, write) = %v", tc.path, got)
		}
		if r := s.Match(tc.path).Reason(); !strings.Contains(r, tc.reasonMention) {
			t.Errorf("Reason(%q) = %q, want it to mention %q", tc.path, r, tc.reasonMention)
		}
	}
}

func TestNewSensitivityRejectsBadPatterns(t *testing.T) {
	for _, p := range []string{"", "   ", "[abc", "{a,b", "/", "./"} {
		if _, err := NewSensitivity(SensitivityRule{Pattern: p, Sensitive: true}); err == nil {
			t.Errorf("NewSensitivity(%q) accepted", p)
		}
	}
}

// Seed 001's format inverts the boolean: value true means AUTO-APPROVE. Both
// directions are tested so the inversion can never silently flip.
func TestParseAutoApprovePatterns(t *testing.T) {
	rules, err := ParseAutoApprovePatterns([]byte(`[
		{"pattern": "**/deploy.yaml", "value": false},
		{"pattern": "**/docs/**", "value": true}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []SensitivityRule{{Pattern: "**/deploy.yaml", Sensitive: true}, {Pattern: "**/docs/**", Sensitive: false}}
	if !slices.Equal(rules, want) {
		t.Fatalf("rules = %+v, want %+v", rules, want)
	}
	s, err := NewSensitivity(rules...)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Sensitive("ops/deploy.yaml") {
		t.Error(`value false ("do not auto-approve") did not make the file sensitive`)
	}
	if s.Sensitive("docs/guide.md") {
		t.Error(`value true ("auto-approve") made the file sensitive`)
	}

	// The classic mistake: value true "because .env is sensitive". The
	// floor keeps .env sensitive anyway.
	rules, err = ParseAutoApprovePatterns([]byte(`{"sensitiveFilePatterns": [{"pattern": "**/.env", "value": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, _ = NewSensitivity(rules...)
	if !s.Sensitive(".env") {
		t.Error(".env lost approval through an auto-approve entry")
	}
}

func TestParseAutoApprovePatternsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[{"pattern": "x"}]`, `missing "value"`},
		{`[{"pattern": "x", "value": "false"}]`, "cannot unmarshal"},
		{`[{"pattern": "x", "value": false, "sensitive": true}]`, "unknown field"},
		{`[{"pattern": "[x", "value": false}]`, "not a valid glob"},
		{`{"patterns": []}`, "unknown field"},
		{`{}`, `no "sensitiveFilePatterns"`},
		{`"x"`, "cannot unmarshal"},
		{``, "EOF"},
	} {
		_, err := ParseAutoApprovePatterns([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseAutoApprovePatterns(%s) = %v, want an error mentioning %q", tc.in, err, tc.want)
		}
	}
}

func TestBuiltinSensitivityRulesIsACopy(t *testing.T) {
	r := BuiltinSensitivityRules()
	r[0].Pattern = "changed"
	if BuiltinSensitivityRules()[0].Pattern == "changed" {
		t.Error("BuiltinSensitivityRules exposes the floor")
	}
	if len(builtinRules()) != len(r) {
		t.Errorf("compiled floor has %d rules, list has %d", len(builtinRules()), len(r))
	}
}

func BenchmarkSensitivityMatch(b *testing.B) {
	s, _ := NewSensitivity(SensitivityRule{Pattern: "config/**", Sensitive: true}, SensitivityRule{Pattern: "*.sql", Sensitive: true})
	for _, p := range []string{"internal/server/handler.go", ".env", "a/b/c/d/e/f/g.txt"} {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Match(p)
			}
		})
	}
}
