package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
)

func TestHelp(t *testing.T) {
	clitest.Help(t, func(o, e io.Writer) int {
		return run(context.Background(), []string{"-h"}, strings.NewReader(""), o, e)
	},
		"-model", "script:FILE", "agent_servers", "Exit status", "-db", "-sandbox", "-deny", "-disable-tools", ".tether/settings.json")
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-model", "script:x.jsonl", "-sandbox", "maybe"},
		{"-model", "script:x.jsonl", "-approval-timeout", "0s"},
		{"-model", "script:x.jsonl", "extra"},
		{"-model", "script:x.jsonl", "-tool-calling", "smoke"},
		{"-model", "script:x.jsonl", "-max-iterations", "-1"},
		{"-model", "script:x.jsonl", "-trust"},
		{"-model", "script:x.jsonl", "-allow", "Read(.env)"},
		{"-model", "script:x.jsonl", "-mode"},
	} {
		var o, e bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &o, &e); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, e.String())
		}
		if o.Len() != 0 {
			t.Errorf("%q: wrote %q on standard output, which carries the protocol only", args, o.String())
		}
	}
}

// A malformed user settings file is exit 2 naming the file and field;
// the model may come from it instead of -model.
func TestUserSettingsFile(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	file := filepath.Join(cfg, "tether", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"sandbox": "sometimes"}`), 0o644)
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"-model", "script:x.jsonl"}, strings.NewReader(""), &o, &e); code != 2 || !strings.Contains(e.String(), file) || !strings.Contains(e.String(), "sandbox") {
		t.Errorf("exit %d, want 2 naming %s and sandbox: %s", code, file, e.String())
	}
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o644)
	os.WriteFile(file, []byte(`{"model": "script:`+script+`"}`), 0o644)
	o.Reset()
	e.Reset()
	if code := run(context.Background(), []string{"-db", "memory"}, strings.NewReader(""), &o, &e); code != 0 {
		t.Errorf("model from the user settings: exit %d, want 0 (%s)", code, e.String())
	}
}

// A model that cannot be opened is exit 1, before any protocol.
func TestUnopenableModel(t *testing.T) {
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"-model", "script:/no/such/script.jsonl", "-db", "memory"}, strings.NewReader(""), &o, &e); code != 1 {
		t.Errorf("exit %d, want 1 (%s)", code, e.String())
	}
}
