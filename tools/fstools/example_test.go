package fstools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
)

// The file tools work on a confined Workspace: every path a model writes is
// resolved inside it, and edits are written atomically.
func Example() {
	dir, err := os.MkdirTemp("", "fstools-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "greeting.txt"), []byte("hello, world\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	var reg tools.Registry
	if err := reg.Register(fstools.NewRead(ws), fstools.NewEdit(ws)); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	// Models spell argument names many ways; the registry maps "file" to
	// edit_file's "path" before the tool sees the call.
	edit := reg.Execute(ctx, tools.Call{Name: "edit_file", Arguments: json.RawMessage(
		`{"file": "greeting.txt", "old_text": "world", "new_text": "gopher"}`)})
	if edit.IsError {
		log.Fatal(edit.Text)
	}
	data, err := os.ReadFile(filepath.Join(dir, "greeting.txt"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))

	// A path outside the workspace is refused with a message the model can act on.
	escape := reg.Execute(ctx, tools.Call{Name: "read_file", Arguments: json.RawMessage(`{"path": "../outside.txt"}`)})
	fmt.Println("outside refused:", escape.IsError)
	// Output:
	// hello, gopher
	// outside refused: true
}
