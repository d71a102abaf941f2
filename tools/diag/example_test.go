package diag_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/diag"
)

// get_diagnostics runs the project's own toolchain (go vet for a Go module)
// and answers with one line per problem, relative to the workspace.
func Example() {
	dir, err := os.MkdirTemp("", "diag-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d\\n\", \"seven\")\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	var reg tools.Registry
	if err := reg.Register(diag.New(ws)); err != nil {
		log.Fatal(err)
	}
	res := reg.Execute(context.Background(), tools.Call{Name: diag.Name, Arguments: []byte(`{}`)})
	fmt.Println(res.Text)
	// Output:
	// 1 problem in the workspace (go vet ./...):
	// main.go:6:14: error: fmt.Printf format %d has arg "seven" of wrong type string
}
