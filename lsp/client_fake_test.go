package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func startFake(t *testing.T, mode string) *Client {
	t.Helper()
	spec := ServerSpec{Name: "fake", Command: os.Args[0], Env: []string{"TETHER_FAKE_LSP=" + mode},
		Languages: map[string]string{".fk": "fake"}, Settings: map[string]any{"answer": 42}}
	c, err := Start(context.Background(), spec, t.TempDir(), nil)
	require.NoError(t, err)
	return c
}

func TestFakeLifecycle(t *testing.T) {
	c := startFake(t, "normal")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	path := filepath.Join(c.Root(), "a.fk")
	require.NoError(t, c.Sync(ctx, path, "one"))
	d, err := c.Diagnostics(ctx, path)
	require.NoError(t, err)
	require.Len(t, d, 1)
	assert.Equal(t, `v1 config [{"answer":42}]`, d[0].Message, "the client answered workspace/configuration with its Settings")
	assert.Equal(t, "warning", d[0].Severity.String())

	require.NoError(t, c.Sync(ctx, path, "one")) // unchanged: no didChange
	require.NoError(t, c.Sync(ctx, path, "two"))
	d, err = c.Diagnostics(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, `v2 config [{"answer":42}]`, d[0].Message, "diagnostics are for the current version")

	locs, err := c.Definition(ctx, path, Position{})
	require.NoError(t, err)
	assert.Equal(t, []Location{{URI: "file:///x/y.go", Range: Range{Start: Position{2, 5}, End: Position{2, 9}}}}, locs, "a LocationLink becomes its selection range")

	_, err = c.Implementation(ctx, path, Position{})
	assert.True(t, IsMethodNotFound(err), "%v", err)
	assert.True(t, c.Supports("definitionProvider"))
	assert.False(t, c.Supports("typeHierarchyProvider"))

	hctx, hcancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = c.Hover(hctx, path, Position{})
	hcancel()
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	require.NoError(t, c.Close(context.Background()))
	assert.NotNil(t, c.cmd.ProcessState, "process reaped")
	assert.False(t, c.Alive())
	_, err = c.Definition(ctx, path, Position{})
	assert.ErrorIs(t, err, ErrClosed)
	assert.NoError(t, c.Close(context.Background()), "Close is idempotent")
}

func TestFakeHungShutdown(t *testing.T) {
	c := startFake(t, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Close(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shut down fake")
	assert.NotNil(t, c.cmd.ProcessState, "killed and reaped")
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestFakeCrash(t *testing.T) {
	c := startFake(t, "crash")
	defer c.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	<-c.exited
	_, err := c.Definition(ctx, filepath.Join(c.Root(), "a.fk"), Position{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrClosed), "%v", err)
}

func TestStartErrors(t *testing.T) {
	_, err := Start(context.Background(), ServerSpec{Name: "nope", Command: "no-such-language-server-xyz"}, t.TempDir(), nil)
	assert.ErrorIs(t, err, ErrNoServer)

	// A program that is not a language server: the error carries its stderr.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = Start(ctx, ServerSpec{Name: "sh", Command: "sh", Args: []string{"-c", "echo not a server >&2"}}, t.TempDir(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a server")
}

func TestManager(t *testing.T) {
	spec := ServerSpec{Name: "fake", Command: os.Args[0], Env: []string{"TETHER_FAKE_LSP=normal"}, Languages: map[string]string{".fk": "fake"}}
	m := &Manager{Root: t.TempDir(), Servers: []ServerSpec{spec}}
	ctx := context.Background()
	a, err := m.ClientFor(ctx, "x/a.fk")
	require.NoError(t, err)
	b, err := m.ClientFor(ctx, "y/B.FK")
	require.NoError(t, err)
	assert.Same(t, a, b, "one server per spec")
	assert.Equal(t, []string{"fake"}, m.Running())

	_, err = m.ClientFor(ctx, "a.txt")
	var ns *NoServerError
	require.ErrorAs(t, err, &ns)
	assert.Equal(t, ".txt", ns.Ext)
	assert.ErrorIs(t, err, ErrNoServer)

	require.NoError(t, m.Close(ctx))
	_, err = m.ClientFor(ctx, "a.fk")
	assert.ErrorIs(t, err, ErrManagerClosed)
	assert.False(t, a.Alive())
}

func TestDefaultServersNoServer(t *testing.T) {
	m := &Manager{Root: t.TempDir(), LookPath: func(string) (string, error) { return "", errors.New("absent") }}
	_, err := m.ClientFor(context.Background(), "main.py")
	require.ErrorIs(t, err, ErrNoServer)
	assert.Equal(t, "no language server for .py files (looked for [pyright-langserver pylsp] on PATH)", err.Error())
	assert.True(t, strings.Contains(err.Error(), "pyright"))
}

// TestManagerRemembersFailure: a server that fails to start is not
// respawned on every call.
func TestManagerRemembersFailure(t *testing.T) {
	count := filepath.Join(t.TempDir(), "starts")
	spec := ServerSpec{Name: "broken", Command: "sh", Args: []string{"-c", "echo x >> " + count + "; echo boom >&2"}, Languages: map[string]string{".fk": "fake"}}
	m := &Manager{Root: t.TempDir(), Servers: []ServerSpec{spec}}
	defer m.Close(context.Background())
	for range 3 {
		_, err := m.ClientFor(context.Background(), "a.fk")
		var se *StartError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "broken", se.Server)
		assert.Equal(t, "boom", se.Stderr)
	}
	b, err := os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(b), "started once")
	assert.Empty(t, m.Running())
}

// TestWaitIdle: WaitIdle returns once every work-done progress has ended
// and the server has been quiet for the given time.
func TestWaitIdle(t *testing.T) {
	c := startFake(t, "normal")
	defer c.Close(context.Background())
	c.progress(`"load"`, "begin")
	go func() {
		time.Sleep(200 * time.Millisecond)
		c.progress(`"load"`, "end")
	}()
	start := time.Now()
	require.NoError(t, c.WaitIdle(context.Background(), 50*time.Millisecond))
	assert.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond)

	c.progress(`"stuck"`, "begin")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, c.WaitIdle(ctx, 10*time.Millisecond), context.DeadlineExceeded)
}
