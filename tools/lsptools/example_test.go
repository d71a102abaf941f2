package lsptools_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
	"github.com/tetherdev/tether/tools/lsptools"
)

// Give an agent code intelligence on a workspace: the built-in tools, then
// the language-server tools, which take over get_diagnostics and keep the
// toolchain one as their fallback.
func Example() {
	ctx := context.Background()
	ws, err := safety.OpenWorkspace("testdata/shapes")
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()
	servers := &lsp.Manager{Root: ws.Root()}
	defer servers.Close(ctx)

	var reg tools.Registry
	if _, err := builtin.Register(&reg, ws, builtin.Options{NoTerminal: true}); err != nil {
		log.Fatal(err)
	}
	if err := lsptools.Register(&reg, lsptools.Config{Files: ws, Servers: servers}); err != nil {
		log.Fatal(err)
	}
	res := reg.Execute(ctx, tools.Call{Name: "find_definition", Arguments: []byte(`{"path":"main.go","symbolName":"Total"}`)})
	fmt.Println(res.Text)
}

func ExampleProgressGroup() {
	for _, name := range []string{"find_references", "find_symbol", "get_document_symbols"} {
		fmt.Println(name, "→", lsptools.ProgressGroup(name))
	}
	// Output:
	// find_references → Analyzing code
	// find_symbol → Searching codebase
	// get_document_symbols → Inspecting file structure
}
