// Package diag implements get_diagnostics: compiler and vet diagnostics
// from the project's own toolchain (go vet for Go modules, tsc --noEmit for
// TypeScript projects), parsed into file/line/column records.
package diag

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tetherdev/tether/internal/lazyregexp"
	"github.com/tetherdev/tether/tools"
)

// Workspace is what get_diagnostics needs of *safety.Workspace.
type Workspace interface {
	Root() string
	Rel(path string) (string, error)
	Stat(path string) (fs.FileInfo, error)
}

// Diagnostic is one problem a toolchain reported.
type Diagnostic struct {
	Path     string // workspace-relative, slash-separated
	Line     int
	Column   int
	Severity string // "error" or "warning"
	Message  string
	Source   string // "go vet", "tsc"
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Line, d.Column, d.Severity, d.Message)
}

// Args are get_diagnostics's arguments.
type Args struct {
	Path string `json:"path,omitempty" jsonschema:"description=File or directory to check\\, relative to the workspace root. Default: the whole workspace."`
}

// Name is the tool's name.
const Name = "get_diagnostics"

// Timeout bounds one toolchain run.
const Timeout = 3 * time.Minute

// ErrNoToolchain: nothing in the workspace says how to check it.
var ErrNoToolchain = errors.New("no diagnostics source for this workspace")

// New returns get_diagnostics over ws.
func New(ws Workspace) tools.Tool {
	return tools.New(Name,
		"Get compiler and vet errors and warnings for a file or the whole workspace, from the project's own toolchain (go vet for Go modules, tsc --noEmit for TypeScript). Use it after editing code.",
		func(ctx context.Context, a Args) (tools.Result, error) { return run(ctx, ws, a) },
		tools.ReadOnly(), tools.WithKind(tools.KindAnalyze),
		tools.WithTimeout(Timeout+30*time.Second),
	)
}

func run(ctx context.Context, ws Workspace, a Args) (tools.Result, error) {
	target := "."
	if a.Path != "" {
		r, err := ws.Rel(a.Path)
		if err != nil {
			return tools.Result{}, err
		}
		if _, err := ws.Stat(r); err != nil {
			return tools.Result{}, fmt.Errorf("%q does not exist; check the path with list_files", a.Path)
		}
		target = r
	}
	root := ws.Root()
	var diags []Diagnostic
	var sources []string
	ran := false
	if modDir, ok := findUp(root, target, "go.mod"); ok {
		if _, err := exec.LookPath("go"); err == nil {
			ran = true
			d, how, err := goVet(ctx, root, modDir, target)
			if err != nil {
				return tools.Result{}, err
			}
			diags, sources = append(diags, d...), append(sources, how)
		}
	}
	if projDir, ok := findUp(root, target, "tsconfig.json"); ok {
		if tsc := findTsc(root, projDir); tsc != "" {
			ran = true
			d, how, err := runTsc(ctx, root, projDir, tsc)
			if err != nil {
				return tools.Result{}, err
			}
			diags, sources = append(diags, d...), append(sources, how)
		}
	}
	if !ran {
		return tools.Result{}, fmt.Errorf("%w: found neither a go.mod (with go installed) nor a tsconfig.json (with tsc installed) for %s; run the project's checker with run_terminal_command", ErrNoToolchain, target)
	}
	return format(target, diags, sources), nil
}

func format(target string, diags []Diagnostic, sources []string) tools.Result {
	var mine, others []Diagnostic
	for _, d := range diags {
		if target == "." || d.Path == target || strings.HasPrefix(d.Path, target+"/") {
			mine = append(mine, d)
		} else {
			others = append(others, d)
		}
	}
	where := target
	if target == "." {
		where = "the workspace"
	}
	meta := tools.Meta{Path: target, Matches: len(mine)}
	var b strings.Builder
	if len(mine) == 0 {
		fmt.Fprintf(&b, "No problems found in %s (%s).", where, strings.Join(sources, "; "))
	} else {
		fmt.Fprintf(&b, "%s in %s (%s):\n", problems(len(mine)), where, strings.Join(sources, "; "))
		const maxShown = 100
		for i, d := range mine {
			if i == maxShown {
				fmt.Fprintf(&b, "[%d more not shown]\n", len(mine)-maxShown)
				meta.Truncated, meta.OmittedItems = true, len(mine)-maxShown
				break
			}
			b.WriteString(d.String() + "\n")
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "\n[%d more %s in other files of the package or project]", len(others), plural(len(others), "problem", "problems"))
	}
	return tools.Result{Text: strings.TrimRight(b.String(), "\n"), IsError: false, Meta: meta}
}

// problems says "1 problem" or "N problems".
func problems(n int) string { return fmt.Sprintf("%d %s", n, plural(n, "problem", "problems")) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// findUp looks for name in target's directory and its ancestors, up to the
// workspace root; it returns the directory holding it, workspace-relative.
func findUp(root, target, name string) (string, bool) {
	dir := target
	if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err == nil && !st.IsDir() {
		dir = path.Dir(target)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir), name)); err == nil {
			return dir, true
		}
		if dir == "." {
			return "", false
		}
		dir = path.Dir(dir)
	}
}

var goDiag = lazyregexp.New(`^(?:vet: )?(.+?\.go):(\d+):(?:(\d+):)? (.*)$`)

// goVet runs go vet on the package holding target (or every package of
// the module for a directory). vet type-checks first, so compile errors
// come back too.
func goVet(ctx context.Context, root, modDir, target string) ([]Diagnostic, string, error) {
	pattern := "./..."
	if target != "." && target != modDir {
		relToMod := strings.TrimPrefix(strings.TrimPrefix(target, modDir), "/")
		if modDir == "." {
			relToMod = target
		}
		if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err == nil && !st.IsDir() {
			relToMod = path.Dir(relToMod)
			pattern = "./" + relToMod
		} else {
			pattern = "./" + relToMod + "/..."
		}
	}
	pattern = strings.Replace(pattern, "/./", "/", 1)
	dir := filepath.Join(root, filepath.FromSlash(modDir))
	out, err := command(ctx, dir, "go", "vet", pattern)
	if err != nil {
		return nil, "", err
	}
	var diags []Diagnostic
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := goDiag.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		file := m[1]
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		rel, err := filepath.Rel(root, file)
		if err != nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		diags = append(diags, Diagnostic{Path: filepath.ToSlash(rel), Line: line, Column: col, Severity: "error", Message: m[4], Source: "go vet"})
	}
	return diags, "go vet " + pattern, nil
}

func findTsc(root, projDir string) string {
	local := filepath.Join(root, filepath.FromSlash(projDir), "node_modules", ".bin", "tsc")
	if _, err := os.Stat(local); err == nil {
		return local
	}
	if p, err := exec.LookPath("tsc"); err == nil {
		return p
	}
	return ""
}

var tsDiag = lazyregexp.New(`^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+: .*)$`)

func runTsc(ctx context.Context, root, projDir, tsc string) ([]Diagnostic, string, error) {
	dir := filepath.Join(root, filepath.FromSlash(projDir))
	out, err := command(ctx, dir, tsc, "--noEmit", "--pretty", "false", "-p", ".")
	if err != nil {
		return nil, "", err
	}
	var diags []Diagnostic
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := tsDiag.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		rel, err := filepath.Rel(root, filepath.Join(dir, m[1]))
		if err != nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		diags = append(diags, Diagnostic{Path: filepath.ToSlash(rel), Line: line, Column: col, Severity: m[4], Message: m[5], Source: "tsc"})
	}
	return diags, "tsc --noEmit", nil
}

// command runs a checker with a timeout that kills its whole process
// group. A non-zero exit is expected (it means problems were found); only
// failing to start, or running out of time, is an error.
func command(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// A read-only tool must not rewrite go.mod or fetch a toolchain.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "NO_COLOR=1")
	inGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s did not finish within %s and was stopped", name, Timeout)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("running %s: %w", name, err)
	}
	return out.Bytes(), nil
}
