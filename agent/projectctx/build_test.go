package projectctx

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

func TestDetectBuild(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  BuildCommands
		err   bool
	}{
		{"go", fstest.MapFS{"go.mod": {}, "Makefile": {}}, BuildCommands{"go build ./...", "go test ./...", "go.mod"}, false},
		{"cargo", fstest.MapFS{"Cargo.toml": {}}, BuildCommands{"cargo build", "cargo test", "Cargo.toml"}, false},
		{"pnpm", fstest.MapFS{"package.json": {Data: []byte(`{"scripts":{"build":"tsc","test":"vitest"}}`)}, "pnpm-lock.yaml": {}},
			BuildCommands{"pnpm run build", "pnpm test", "package.json scripts"}, false},
		{"npm test only", fstest.MapFS{"package.json": {Data: []byte(`{"scripts":{"test":"jest"}}`)}}, BuildCommands{"", "npm test", "package.json scripts"}, false},
		{"no scripts", fstest.MapFS{"package.json": {Data: []byte(`{}`)}}, BuildCommands{}, true},
		{"bad json", fstest.MapFS{"package.json": {Data: []byte(`{`)}}, BuildCommands{}, true},
		{"python", fstest.MapFS{"pyproject.toml": {}}, BuildCommands{"python -m compileall -q .", "python -m pytest", "pyproject.toml"}, false},
		{"make", fstest.MapFS{"Makefile": {}}, BuildCommands{"make", "make test", "Makefile"}, false},
		{"nothing", fstest.MapFS{"a.txt": {}}, BuildCommands{}, true},
	} {
		got, err := DetectBuild(tc.files)
		if tc.err {
			require.Error(t, err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
	_, err := DetectBuild(fstest.MapFS{})
	require.ErrorIs(t, err, ErrNoBuildCommand)
}
