package mcp

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
)

// TestBlindArgumentPaths holds the argument check of a tool that runs on
// its read-only annotation to testdata/argpaths.jsonl, cases written
// before the change from reports of MCP servers reading past their
// directory and from issue 24. The workspace has a link to a secret
// outside it, a linked directory holding credentials, and a project rule
// that makes deploy/prod.conf secret.
func TestBlindArgumentPaths(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, ".env"), []byte("TOKEN=x\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(outside, "gcloud"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "gcloud", "credentials.json"), []byte("{}"), 0o600))
	root := t.TempDir()
	for _, d := range []string{"notes", "deploy", "src", "conf"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for name, body := range map[string]string{"README.md": "hi\n", "deploy/prod.conf": "password=x\n", "src/main.go": "package main\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(body), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(outside, ".env"), filepath.Join(root, "notes", "link.txt")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "gcloud"), filepath.Join(root, "cfg")))
	ws, err := safety.OpenWorkspace(root, safety.WithSensitivityRules(safety.SensitivityRule{Pattern: "deploy/prod.conf", Secret: true, Sensitive: true}))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	judge := newArgJudge(ws, t.TempDir())

	data, err := os.ReadFile("testdata/argpaths.jsonl")
	require.NoError(t, err)
	sc := bufio.NewScanner(strings.NewReader(strings.ReplaceAll(string(data), "$WS", root)))
	total, right := 0, 0
	for n := 1; sc.Scan(); n++ {
		var c struct {
			Source string          `json:"source"`
			Args   json.RawMessage `json:"args"`
			Want   string          `json:"want"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "line %d", n)
		total++
		arg, m, secret := judge.secret(c.Args)
		if secret != (c.Want == "secret") {
			t.Errorf("line %d (%s): secret = %v (argument %q, %s); want %s", n, c.Source, secret, arg, m.Reason(), c.Want)
			continue
		}
		right++
	}
	t.Logf("blind argument-path cases: %d/%d right", right, total)
}
