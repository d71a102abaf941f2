package projectctx_test

import (
	"fmt"
	"log"
	"testing/fstest"

	"github.com/tetherdev/tether/agent/projectctx"
)

// Project context is what the agent learns about a workspace before the
// first tool call: its instructions files and a summary of its manifests.
// A UI lists the files used.
func ExampleDiscover() {
	ws := fstest.MapFS{
		"AGENTS.md": {Data: []byte("Run `go test ./...` before you finish.\n")},
		"go.mod":    {Data: []byte("module example.com/shop\n\ngo 1.26\n\nrequire github.com/google/uuid v1.6.0\n")},
	}
	pc, err := projectctx.Discover(ws, projectctx.Config{})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range pc.Files {
		fmt.Printf("using %s (%s)\n", f.Path, f.Kind)
	}
	fmt.Println(pc.Text)
	// Output:
	// using AGENTS.md (instructions)
	// using go.mod (manifest)
	// ## AGENTS.md
	// Run `go test ./...` before you finish.
	//
	// ## go.mod (summary)
	// module example.com/shop
	// go 1.26
	// requires: github.com/google/uuid
}
