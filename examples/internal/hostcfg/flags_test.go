package hostcfg

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/settings"
)

func parse(t *testing.T, args ...string) (*Flags, error) {
	t.Helper()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := Register(fs, Common...)
	return f, fs.Parse(args)
}

// TestFlagsOverrideSettings: a flag given replaces the settings' value
// (or adds to a list); a flag not given leaves the settings alone.
func TestFlagsOverrideSettings(t *testing.T) {
	env := settings.Env{ConfigDir: t.TempDir()}
	ws := t.TempDir()
	file := filepath.Join(ws, settings.ProjectFile)
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"model": "ollama:a", "sandbox": "on", "approvalTimeout": "1m", "permissions": {"deny": ["rm"]}}`), 0o644)
	f, err := parse(t, "-workspace", ws, "-model", "script:s.jsonl", "-deny", "curl", "-allow-read-only=false")
	if err != nil {
		t.Fatal(err)
	}
	l, err := f.Load(env)
	if err != nil {
		t.Fatal(err)
	}
	r := l.CommandRules()
	if l.Model != "script:s.jsonl" || l.Sandbox != "on" || ApprovalTimeout(l.Settings) != time.Minute || !slices.Equal(r.Deny, []string{"rm", "curl"}) || r.AllowReadOnly {
		t.Errorf("merged: %+v", l.Settings)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-model", "qwen"},
		{"-allow", "Read(.env)"},
		{"-allow", "curl x | sh"},
		{"-sandbox", "yes"},
		{"-approval-timeout", "0s"},
		{"-num-ctx", "big"},
		{"-web-allow", "https://go.dev"},
		{"-tool-calling", "xml"},
		{"-temperature", "3"},
		{"-temperature", "warm"},
		{"-wire-log", ""},
	} {
		if _, err := parse(t, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// TestToolCallingAndTemperature: the settings' toolCalling and
// modelOptions.temperature apply, and the flags override them.
func TestToolCallingAndTemperature(t *testing.T) {
	env := settings.Env{ConfigDir: t.TempDir()}
	ws := t.TempDir()
	file := filepath.Join(ws, settings.ProjectFile)
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"toolCalling": "text", "modelOptions": {"temperature": 0.5}}`), 0o644)
	for _, tc := range []struct {
		args []string
		how  string
		temp float64
		wire string
	}{
		{nil, "text", 0.5, ""},
		{[]string{"-tool-calling", "envelope", "-temperature", "0", "-wire-log", "w.jsonl"}, "envelope", 0, "w.jsonl"},
	} {
		f, err := parse(t, append([]string{"-workspace", ws}, tc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		l, err := f.Load(env)
		if err != nil {
			t.Fatal(err)
		}
		if l.ToolCalling != tc.how || l.ModelOptions.Temperature == nil || *l.ModelOptions.Temperature != tc.temp || f.WireLog != tc.wire {
			t.Errorf("%q: toolCalling %q, temperature %v, wire log %q", tc.args, l.ToolCalling, l.ModelOptions.Temperature, f.WireLog)
		}
	}
	os.WriteFile(file, []byte(`{"toolCalling": "xml"}`), 0o644)
	f, _ := parse(t, "-workspace", ws)
	if _, err := f.Load(env); err == nil || !strings.Contains(err.Error(), "toolCalling") || !strings.Contains(err.Error(), `"envelope"`) {
		t.Errorf("toolCalling xml: %v", err)
	}
}

// TestTableDocumented: docs/settings.md shows the table as it is.
func TestTableDocumented(t *testing.T) {
	var b strings.Builder
	WriteTable(&b)
	doc, err := os.ReadFile("../../../docs/settings.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), b.String()) {
		t.Errorf("docs/settings.md does not hold the flag table; paste:\n%s", b.String())
	}
}
