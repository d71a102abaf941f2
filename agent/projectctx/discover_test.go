package projectctx

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

const goMod = `module example.com/shop

go 1.26

toolchain go1.26.5

require (
	github.com/stretchr/testify v1.10.0
	golang.org/x/sync v0.9.0 // indirect
	modernc.org/sqlite v1.34.0
)

require github.com/google/uuid v1.6.0
`

const packageJSON = `{"name":"web","version":"1.2.0","type":"module","packageManager":"pnpm@9.0.0",
"scripts":{"build":"vite build","test":"vitest run"},"dependencies":{"react":"^19","zod":"^3"},"devDependencies":{"vite":"^6"}}`

const pyproject = `[project]
name = "shop"
version = "0.3.0"
requires-python = ">=3.12"
dependencies = [
  "fastapi>=0.110",
  "sqlalchemy[asyncio]~=2.0",
]

[tool.pytest.ini_options]
addopts = "-q"

[tool.ruff]
line-length = 100
`

const cargoToml = `[package]
name = "shop"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
tokio = "1"

[dev-dependencies]
proptest = "1"
`

func TestDiscover(t *testing.T) {
	fsys := fstest.MapFS{
		"AGENTS.md":                       {Data: []byte("Always run go vet.\n")},
		"CODE.md":                         {Data: []byte("Code style: small functions.\n")},
		".github/copilot-instructions.md": {Data: []byte("Prefer table tests.\n")},
		"README":                          {Data: []byte("# Shop\nA shop.\n")},
		"go.mod":                          {Data: []byte(goMod)},
		"package.json":                    {Data: []byte(packageJSON)},
		"pyproject.toml":                  {Data: []byte(pyproject)},
		"Cargo.toml":                      {Data: []byte(cargoToml)},
		"CLAUDE.md":                       {Mode: 0o755 | 1<<31}, // a directory named like a file: skipped
	}
	pc, err := Discover(fsys, Config{})
	require.NoError(t, err)
	var paths []string
	for _, f := range pc.Files {
		paths = append(paths, f.Path+":"+f.Kind)
	}
	require.Equal(t, []string{"AGENTS.md:instructions", "CODE.md:instructions", ".github/copilot-instructions.md:instructions",
		"README:readme", "go.mod:manifest", "package.json:manifest", "pyproject.toml:manifest", "Cargo.toml:manifest"}, paths)

	for _, want := range []string{
		"## AGENTS.md\nAlways run go vet.",
		"## go.mod (summary)\nmodule example.com/shop\ngo 1.26\ntoolchain go1.26.5\nrequires: github.com/stretchr/testify, modernc.org/sqlite, github.com/google/uuid",
		"name web@1.2.0\ntype module\npackageManager pnpm@9.0.0\nscripts:\n  build: vite build\n  test: vitest run\ndependencies: react, zod\ndevDependencies: vite",
		"name shop\nversion 0.3.0\nrequires-python >=3.12\ndependencies: fastapi, sqlalchemy\ntools configured: pytest, ruff",
		"name shop\nversion 0.1.0\nedition 2021\ndependencies: proptest, serde, tokio",
	} {
		require.Contains(t, pc.Text, want)
	}
	require.NotContains(t, pc.Text, "golang.org/x/sync", "indirect requirements are left out")
}

func TestProjectContextBounds(t *testing.T) {
	long := strings.Repeat("Rule line that goes on.\n", 1000) // 24 KB
	fsys := fstest.MapFS{"AGENTS.md": {Data: []byte(long)}, "CLAUDE.md": {Data: []byte(long)}, "README.md": {Data: []byte(long)}, "go.mod": {Data: []byte(goMod)}}
	pc, err := Discover(fsys, Config{MaxFileBytes: 4000, MaxBytes: 9000})
	require.NoError(t, err)
	require.LessOrEqual(t, len(pc.Text), 9000)
	require.Len(t, pc.Files, 4)
	for _, f := range pc.Files[:3] {
		require.True(t, f.Truncated, f.Path)
	}
	require.Contains(t, pc.Text, "[… AGENTS.md is longer; read the file itself for the rest]")
	require.Equal(t, 4001, pc.Files[0].Bytes, "a file is read only up to the bound")

	pc, err = Discover(fstest.MapFS{"CODE.md": {Data: []byte("ok \xff\xfe end")}}, Config{})
	require.NoError(t, err)
	require.Equal(t, "## CODE.md\nok \uFFFD end", pc.Text, "invalid UTF-8 never reaches the prompt")

	pc, err = Discover(fsys, Config{Disabled: true})
	require.NoError(t, err)
	require.Empty(t, pc.Files)

	pc, err = Discover(fsys, Config{Files: []string{"go.mod", "missing.md"}})
	require.NoError(t, err)
	require.Len(t, pc.Files, 1)
}

// The default list cannot be changed from outside: a host that edits the
// slice it got changes its own copy, not what every Executor discovers.
func TestDefaultFilesIsACopy(t *testing.T) {
	files := DefaultFiles()
	files[0] = "EVIL.md"
	_ = append(files[:1], "also-evil.md")
	if got := DefaultFiles(); got[0] != "AGENTS.md" || got[1] == "also-evil.md" {
		t.Errorf("the defaults changed through a returned slice: %v", got)
	}
	fsys := fstest.MapFS{"AGENTS.md": {Data: []byte("rules")}, "EVIL.md": {Data: []byte("x")}}
	pc, err := Discover(fsys, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Files) != 1 || pc.Files[0].Path != "AGENTS.md" {
		t.Errorf("discovered %+v, want AGENTS.md alone", pc.Files)
	}
}
