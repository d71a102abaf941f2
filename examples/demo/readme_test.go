package main

import (
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlock matches a fenced Go code block in Markdown.
var goBlock = regexp.MustCompile("(?ms)^```go\n(.*?)^```")

// TestReadmeSnippetsCompile builds every Go block of the README
// (and of the draft it is folded from) verbatim, as its own main package
// inside this module, through a build overlay: nothing is written to the
// source tree. A snippet that stops compiling when an API changes fails
// here, not in a reader's editor.
func TestReadmeSnippetsCompile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	if testing.Short() {
		t.Skip("-short: building the README snippets takes a while")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, doc := range []string{"README.md"} {
		md, err := os.ReadFile(filepath.Join(root, doc))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range goBlock.FindAllStringSubmatch(string(md), -1) {
			found++
			code := m[1]
			name := fmt.Sprintf("%s#%d", doc, i+1)
			t.Run(name, func(t *testing.T) {
				if !strings.HasPrefix(code, "package ") {
					t.Fatalf("%s: a README Go block must be a whole file (start with package) so readers can run it", name)
				}
				tmp := t.TempDir()
				src := filepath.Join(tmp, "main.go")
				if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
					t.Fatal(err)
				}
				pkg := filepath.Join(root, "examples", "demo", fmt.Sprintf("readme_snippet_%d", found))
				overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(pkg, "main.go"): src}})
				ov := filepath.Join(tmp, "overlay.json")
				if err := os.WriteFile(ov, overlay, 0o644); err != nil {
					t.Fatal(err)
				}
				// go vet cannot run on an overlay-only directory; building
				// and gofmt are the checks.
				cmd := exec.Command("go", "build", "-overlay", ov, "-o", filepath.Join(tmp, "bin"), pkg)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("go build: %v\n%s\n--- snippet ---\n%s", err, out, code)
				}
				if formatted, err := format.Source([]byte(code)); err != nil || string(formatted) != code {
					t.Errorf("%s is not gofmt-formatted (%v)", name, err)
				}
			})
		}
	}
	if found == 0 {
		t.Fatal("no Go blocks found in the README")
	}
}

// TestReadmeTeachesNoUnsafeApprover guards the README's approver examples:
// only confirm-level actions reach an approver, so every file edit it sees
// touches a sensitive file. An example that approves edits by kind or size
// teaches readers to let small writes to .env or .git/hooks through.
func TestReadmeTeachesNoUnsafeApprover(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range goBlock.FindAllStringSubmatch(string(md), -1) {
		code := m[1]
		if !strings.Contains(code, "approval.Func") {
			continue
		}
		if strings.Contains(code, "KindFileEdit") && (strings.Contains(code, "AllowOnce") || strings.Contains(code, "AllowSession")) {
			t.Errorf("README Go block %d auto-approves file edits in an approver; only sensitive edits reach it:\n%s", i+1, code)
		}
	}
}
