package lsp_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tetherdev/tether/lsp"
)

// Ask gopls where a function is defined. The Manager starts gopls on
// first use and Close shuts it down.
func ExampleManager() {
	ctx := context.Background()
	root, _ := filepath.Abs("testdata/shapes")
	m := &lsp.Manager{Root: root}
	defer m.Close(ctx)

	main := filepath.Join(root, "main.go")
	c, err := m.ClientFor(ctx, main)
	if errors.Is(err, lsp.ErrNoServer) {
		fmt.Println("install gopls first")
		return
	} else if err != nil {
		log.Fatal(err)
	}
	text, err := os.ReadFile(main) // the content the server should see
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Sync(ctx, main, string(text)); err != nil {
		log.Fatal(err)
	}
	// geom.Total on line 17 (zero-based 16), UTF-16 column 45.
	locs, err := c.Definition(ctx, main, lsp.Position{Line: 16, Character: 45})
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range locs {
		p, _ := lsp.Path(l.URI)
		fmt.Println(filepath.Base(p), l.Range.Start.Line+1)
	}
}

// LSP counts columns in UTF-16 code units; Go strings are UTF-8 bytes.
func ExampleUTF16Col() {
	line := `msg := "héllo 😀" + name`
	byteCol := len(`msg := "héllo 😀" + `) // where name starts, in bytes
	col16 := lsp.UTF16Col(line, byteCol)
	fmt.Println(byteCol, col16, lsp.ByteCol(line, col16) == byteCol)
	// Output: 23 20 true
}
