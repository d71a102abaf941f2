package diag

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

func TestGoDiagnostics(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not installed")
	}
	if testing.Short() {
		t.Skip("runs go vet")
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.22\n",
		"ok/ok.go":   "package ok\n\nfunc OK() int { return 1 }\n",
		"bad/bad.go": "package bad\n\nimport \"fmt\"\n\nfunc Bad() {\n\tfmt.Printf(\"%d\\n\", \"str\")\n\tundefinedThing()\n}\n",
	}
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
	ws, err := safety.OpenWorkspace(root)
	require.NoError(t, err)
	defer ws.Close()
	tool := New(ws)
	exec := func(args string) (tools.Result, error) {
		return tool.Execute(context.Background(), tools.Call{Arguments: json.RawMessage(args)})
	}

	r, err := exec(`{"path":"bad/bad.go"}`)
	require.NoError(t, err)
	assert.Contains(t, r.Text, "bad/bad.go:7:2: error: undefined: undefinedThing")
	assert.Contains(t, r.Text, "(go vet ./bad)")
	assert.Equal(t, 1, r.Meta.Matches)

	r, err = exec(`{"path":"ok/ok.go"}`)
	require.NoError(t, err)
	assert.Equal(t, "No problems found in ok/ok.go (go vet ./ok).", r.Text)

	r, err = exec(`{}`)
	require.NoError(t, err)
	assert.Contains(t, r.Text, "bad/bad.go:7:2")

	_, err = exec(`{"path":"../x"}`)
	assert.ErrorIs(t, err, safety.ErrOutsideWorkspace)
	_, err = exec(`{"path":"missing.go"}`)
	assert.ErrorContains(t, err, "does not exist")
}

func TestNoToolchain(t *testing.T) {
	ws, err := safety.OpenWorkspace(t.TempDir())
	require.NoError(t, err)
	defer ws.Close()
	_, err = New(ws).Execute(context.Background(), tools.Call{Arguments: json.RawMessage(`{}`)})
	assert.ErrorIs(t, err, ErrNoToolchain)
}

func TestParseTsc(t *testing.T) {
	m := tsDiag.FindStringSubmatch(`src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.`)
	require.NotNil(t, m)
	assert.Equal(t, []string{"src/a.ts", "3", "7", "error", "TS2322: Type 'string' is not assignable to type 'number'."}, m[1:])
}
