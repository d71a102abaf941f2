package builtin_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools/builtin"
	"github.com/tetherdev/tether/tools/fstools"
	"github.com/tetherdev/tether/tools/lsptools"
	"github.com/tetherdev/tether/tools/pdftools"
	"github.com/tetherdev/tether/tools/webtools"
)

// TestAgentNamesNoBuiltinTool is the grep of the agent package for the
// names of the built-in tools: the agent routes, titles and prompts by
// what tools declare (effects, titles, guidance), so no source file of
// agent/ (tests aside) may name one, in code or in comments.
func TestAgentNamesNoBuiltinTool(t *testing.T) {
	ws, err := safety.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ts, _, err := builtin.Tools(ws, builtin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts = append(ts, fstools.Staging(ws, approval.NewStager(ws, approval.StagerConfig{}))...)
	names := []string{pdftools.ReadName, webtools.ReadName,
		lsptools.DocumentSymbolsName, lsptools.DefinitionName, lsptools.ReferencesName, lsptools.ImplementationsName,
		lsptools.FindSymbolName, lsptools.HoverName, lsptools.CallHierarchyName, lsptools.TypeHierarchyName, lsptools.DiagnosticsName}
	for _, tool := range ts {
		names = append(names, tool.Describe().Name)
	}
	if len(names) < 25 {
		t.Fatalf("only %d built-in names collected: %v", len(names), names)
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	re := regexp.MustCompile(`\b(` + strings.Join(quoted, "|") + `)\b`)

	root := filepath.Join("..", "..", "agent")
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := re.FindString(line); m != "" {
				t.Errorf("%s:%d names the built-in tool %s: %s", path, i+1, m, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked only %d source files under %s; is the path right?", files, root)
	}
}
