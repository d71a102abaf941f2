package search_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/tetherdev/tether/tools/search"
)

// Search runs over any fs.FS; in an agent that is the Workspace's confined
// read-only view, here an in-memory tree. Ignored files are skipped as
// ripgrep skips them.
func ExampleSearch() {
	fsys := fstest.MapFS{
		".gitignore":      {Data: []byte("build/\n")},
		"main.go":         {Data: []byte("package main\n\n// TODO: flags\nfunc main() {}\n")},
		"util/strings.go": {Data: []byte("package util\n\n// TODO: tests\n")},
		"build/gen.go":    {Data: []byte("// TODO: generated, ignored\n")},
	}
	res, err := search.Search(context.Background(), fsys, search.Query{Pattern: "TODO"})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range res.Files {
		fmt.Printf("%s: %d match(es)\n", f.Path, f.Matches)
	}
	fmt.Println("files searched:", res.Searched)
	// Output:
	// main.go: 1 match(es)
	// util/strings.go: 1 match(es)
	// files searched: 2
}
