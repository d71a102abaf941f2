package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/lsp"
)

// binary builds the example once per test run.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tether-mcp")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code = run(ctx, args, &o, &e)
	return o.String(), e.String(), code
}

// TestServeAndCall runs the example as a real stdio server subprocess and
// talks to it with the example's own client commands.
func TestServeAndCall(t *testing.T) {
	bin := binary(t)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("alpha\nbeta\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("KEY=1\n"), 0o644))
	server := []string{"--", bin, "serve", "-workspace", ws}

	out, errOut, code := runCLI(t, append([]string{"list"}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^read_file\s+allow\s`, out)
	assert.Regexp(t, `(?m)^write_file\s+confirm\s`, out)
	assert.Regexp(t, `(?m)^find_definition\s+allow\s`, out)

	out, errOut, code = runCLI(t, append([]string{"call", "-tool", "read_file", "-args", `{"path":"notes.txt"}`}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "beta")

	// Confirm-level without -yes: refused on the client side, nothing written.
	_, errOut, code = runCLI(t, append([]string{"call", "-tool", "write_file", "-args", `{"path":"new.txt","content":"x"}`}, server...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "run again with -yes")
	assert.NoFileExists(t, filepath.Join(ws, "new.txt"))

	// With -yes the client lets it through and the server's policy allows
	// a plain file.
	_, errOut, code = runCLI(t, append([]string{"call", "-yes", "-tool", "write_file", "-args", `{"path":"new.txt","content":"x\n"}`}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.FileExists(t, filepath.Join(ws, "new.txt"))

	// The server is headless: its policy refuses secrets whatever the client says.
	_, errOut, code = runCLI(t, append([]string{"call", "-yes", "-tool", "read_file", "-args", `{"path":".env"}`}, server...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "denied by policy")
	assert.NotContains(t, errOut, "KEY=1")

	_, errOut, code = runCLI(t, "call", "-tool", "read_file", "-args", "{nope", "--", bin)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "-args is not valid JSON")
}

// TestServeHTTP runs serve -http as a subprocess and calls it by URL.
func TestServeHTTP(t *testing.T) {
	bin := binary(t)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n\n// Answer is 42.\nconst Answer = 42\n"), 0o644))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve", "-workspace", ws, "-http", addr)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	url := "http://" + addr
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "server did not listen")

	out, errOut, code := runCLI(t, "call", "-url", url, "-tool", "search_workspace", "-args", `{"query":"Answer"}`)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "const Answer = 42")

	if _, err := lsp.LookPath("gopls"); err == nil {
		out, errOut, code = runCLI(t, "call", "-url", url, "-tool", "get_hover_info", "-args", `{"path":"a.go","symbolName":"Answer"}`)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "const Answer untyped int = 42")
	}
	_, errOut, code = runCLI(t, "serve", "-workspace", ws, "-http", ":0")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no authentication")
	_, _, code = runCLI(t, "list", "-url", url, "--", bin)
	assert.Equal(t, 1, code, "both -url and a command")
	assert.True(t, strings.Contains(stderr.String(), "serving"), stderr.String())
}

// syncBuffer is a bytes.Buffer a subprocess writes to while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestConfigFileAndHelp: -mcp-config picks a server from a shared-format
// file, and -h documents every flag of every subcommand.
func TestConfigFileAndHelp(t *testing.T) {
	bin := binary(t)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("from the config\n"), 0o644))
	conf := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"mcpServers":{
		"tether":{"command":"`+bin+`","args":["serve","-workspace","${WS}"]},
		"other":{"url":"http://127.0.0.1:1/mcp"}}}`), 0o600))
	t.Setenv("WS", ws)

	out, errOut, code := runCLI(t, "call", "-mcp-config", conf, "-server", "tether", "-tool", "read_file", "-args", `{"path":"notes.txt"}`)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "from the config")

	_, errOut, code = runCLI(t, "list", "-mcp-config", conf)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "choose one with -server")

	t.Setenv("WS", "")
	_, errOut, code = runCLI(t, "list", "-mcp-config", conf, "-server", "tether")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "mcpServers.tether.args[2]: environment variable WS is not set")

	out, _, code = runCLI(t, "-h")
	require.Equal(t, 0, code)
	for _, name := range subcommandNames {
		fs, _ := newFlagSet(name, nil)
		fs.VisitAll(func(f *flag.Flag) {
			assert.Contains(t, out, "  -"+f.Name, "flag -%s of %s is documented", f.Name, name)
		})
	}
	assert.Contains(t, out, "-mcp-config")
}

// TestResourcesAndPrompts uses the reference server-everything from npm.
func TestResourcesAndPrompts(t *testing.T) {
	if _, err := exec.LookPath("mcp-server-everything"); err != nil {
		t.Skip("mcp-server-everything is not installed; run: npm install -g @modelcontextprotocol/server-everything@2026.8.31")
	}
	server := []string{"--", "mcp-server-everything", "stdio"}
	out, errOut, code := runCLI(t, append([]string{"resources"}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "demo://resource/static/document/")
	out, errOut, code = runCLI(t, append([]string{"resources", "-uri", "demo://resource/static/document/architecture.md"}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "[resource demo://resource/static/document/architecture.md]")
	out, errOut, code = runCLI(t, append([]string{"prompts"}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "/args-prompt city [state]")
	out, errOut, code = runCLI(t, append([]string{"prompts", "-name", "args-prompt", "-arg", "city=Lyon"}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "user: What's weather in Lyon?")
}

// TestSaveMedia: -save-media writes the binary parts of a result to the
// directory (the output only describes them), never over an existing
// file, and refuses a directory that does not exist.
func TestSaveMedia(t *testing.T) {
	if _, err := exec.LookPath("mcp-server-everything"); err != nil {
		t.Skip("mcp-server-everything is not installed; run: npm install -g @modelcontextprotocol/server-everything@2026.8.31")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "media-1.gz"), []byte("kept"), 0o644))
	server := []string{"--", "mcp-server-everything", "stdio"}
	out, errOut, code := runCLI(t, append([]string{"call", "-yes", "-save-media", dir, "-tool", "gzip-file-as-resource",
		"-args", `{"name":"hello.gz","data":"data:text/plain;base64,aGVsbG8=","outputType":"resource"}`}, server...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "application/gzip, 25 bytes of binary data, not passed to the model")
	saved := filepath.Join(dir, "media-2.gz")
	assert.Contains(t, errOut, "saved resource application/gzip (25 bytes) from demo://resource/session/hello.gz to "+saved)
	zr, err := os.Open(saved)
	require.NoError(t, err)
	defer zr.Close()
	r, err := gzip.NewReader(zr)
	require.NoError(t, err)
	plain, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(plain))
	kept, err := os.ReadFile(filepath.Join(dir, "media-1.gz"))
	require.NoError(t, err)
	assert.Equal(t, "kept", string(kept), "an existing file is not replaced")

	_, errOut, code = runCLI(t, append([]string{"call", "-save-media", filepath.Join(dir, "none"), "-tool", "echo"}, server...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "-save-media "+filepath.Join(dir, "none")+": not an existing directory")
}
