package safety_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// exampleDir makes a throwaway project for the examples.
func exampleDir() string {
	dir, err := os.MkdirTemp("", "tether-example-")
	if err != nil {
		log.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=secret\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	return dir
}

func ExampleWorkspace_Check() {
	dir := exampleDir()
	defer os.RemoveAll(dir)
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()

	for _, c := range []struct {
		path string
		op   safety.Op
	}{
		{"main.go", safety.OpWrite},
		{"src/new.go", safety.OpWrite},
		{".env", safety.OpRead},
		{".git/hooks/pre-commit", safety.OpWrite},
		{"../../etc/passwd", safety.OpRead},
		{"notes\u202etxt.exe", safety.OpWrite},
	} {
		pc := ws.Check(c.path, c.op)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-5s %-24q %-7s %s", c.op, c.path, pc.Decision, pc.Rel)))
	}
	// Output:
	// write "main.go"                allow   main.go
	// write "src/new.go"             allow   src/new.go
	// read  ".env"                   confirm .env
	// write ".git/hooks/pre-commit"  confirm .git/hooks/pre-commit
	// read  "../../etc/passwd"       deny
	// write "notes\u202etxt.exe"     deny
}

func ExampleWorkspace_WriteFile() {
	dir := exampleDir()
	defer os.RemoveAll(dir)
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()

	// Atomic, parents created, confined.
	if err := ws.WriteFile("internal/util/strings.go", []byte("package util\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	b, _ := ws.ReadFile("internal/util/strings.go")
	fmt.Printf("%q\n", b)

	err = ws.WriteFile("../escape.txt", []byte("no"), 0o644)
	fmt.Println(errors.Is(err, safety.ErrOutsideWorkspace))
	// Output:
	// "package util\n"
	// true
}

func ExampleParseAutoApprovePatterns() {
	// Seed 001's format: value true means AUTO-APPROVE (not sensitive).
	rules, err := safety.ParseAutoApprovePatterns([]byte(`[
		{"pattern": "deploy/**", "value": false},
		{"pattern": "deploy/README.md", "value": true}
	]`))
	if err != nil {
		log.Fatal(err)
	}
	s, err := safety.NewSensitivity(rules...)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range []string{"deploy/prod.yaml", "deploy/README.md", "main.go", ".env"} {
		fmt.Printf("%-18s sensitive=%-5v %s\n", p, s.Sensitive(p), s.Match(p).Reason())
	}
	// Output:
	// deploy/prod.yaml   sensitive=true  sensitive (rule "deploy/**")
	// deploy/README.md   sensitive=false not sensitive (rule "deploy/README.md")
	// main.go            sensitive=false no sensitivity rule matches
	// .env               sensitive=true  may hold secrets (built-in rule ".env*")
}

func ExamplePolicy_Assess() {
	dir := exampleDir()
	defer os.RemoveAll(dir)
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()

	p := &safety.Policy{
		Workspace: ws,
		Rules:     safety.CommandRules{Allow: []string{"ls", "cat", "go test"}},
	}
	ctx := context.Background()
	for _, a := range []safety.Action{
		{Command: "ls -la && go test ./..."},
		{Command: "cat .env"},
		{Command: "ls", Dir: "../.."},
		{Paths: []safety.PathOp{{Path: "main.go", Op: safety.OpWrite}}},
		{Paths: []safety.PathOp{{Path: "/etc/passwd", Op: safety.OpRead}}},
	} {
		as := p.Assess(ctx, a)
		fmt.Printf("%-7s %s%s\n", as.RiskLevel(), a.Command, a.Paths)
	}
	fmt.Println(p.AssessCommand(ctx, "cat .env", "").Reasons[0])

	p.Headless = true // a gateway: nobody to ask
	fmt.Println(p.AssessCommand(ctx, "cat .env", "").Decision)
	// Output:
	// none    ls -la && go test ./...[]
	// confirm cat .env[]
	// deny    ls[]
	// none    [{main.go write}]
	// deny    [{/etc/passwd read}]
	// cat reads .env: reading .env needs approval: may hold secrets (built-in rule ".env*")
	// deny
}

func ExampleSandbox_Wrap() {
	// The host's own executable is re-executed as the helper; importing
	// safety is all it needs for that.
	ws, err := safety.OpenWorkspace(".")
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()
	tmp, err := os.MkdirTemp("", "agent-tmp-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	sb := ws.NewSandbox(tmp) // writable: the workspace and tmp
	sb.DenyNetwork = true

	cmd := exec.Command("sh", "-c", "make test")
	cmd.Dir = ws.Root()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := sb.Wrap(cmd); errors.Is(err, safety.ErrSandboxUnavailable) {
		log.Printf("not running unconfined: %v", err)
		return
	} else if err != nil {
		log.Fatal(err)
	}
	// cmd.Run() now runs make confined.
}
