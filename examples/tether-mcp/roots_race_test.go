package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstCallAfterRoots: the reference filesystem server started with no
// directory, as editors start it, takes its directories from the client's
// roots: it asks for them after initialization and applies them
// asynchronously. The first call of a one-shot "call" used to reach it
// first and be refused ("Access denied") in most runs. Twenty runs in a
// row must all read the file.
func TestFirstCallAfterRoots(t *testing.T) {
	if _, err := exec.LookPath("mcp-server-filesystem"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("mcp-server-filesystem is not installed; .ci/run installs it")
		}
		t.Skip("mcp-server-filesystem is not installed; run: npm install -g @modelcontextprotocol/server-filesystem@2026.8.31")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("from the root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const runs = 20
	failed := 0
	for i := range runs {
		out, errOut, code := runCLI(t, "call", "-root", dir, "-tool", "read_text_file",
			"-args", `{"path":"`+filepath.Join(dir, "notes.txt")+`"}`, "--", "mcp-server-filesystem")
		if code != 0 || !strings.Contains(out, "from the root") {
			failed++
			t.Errorf("run %d: exit %d\nstdout: %s\nstderr: %s", i+1, code, out, lastLines(errOut, 5))
		}
	}
	t.Logf("%d of %d first calls read the file", runs-failed, runs)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
