package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/sqlitestore"
)

// dirFiles is a minimal checkpoint.Files over a directory. Real hosts
// pass a *safety.Workspace, which also confines paths and writes
// atomically.
type dirFiles struct{ *os.Root }

func (d dirFiles) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := d.Root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return d.Root.WriteFile(name, data, perm)
}

func setup() (dir string, files checkpoint.Files) {
	dir, _ = os.MkdirTemp("", "example")
	os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package main\n// greet says hello.\nfunc greet() string {\n\treturn \"hello\"\n}\n"), 0o644)
	root, err := os.OpenRoot(dir)
	if err != nil {
		log.Fatal(err)
	}
	return dir, dirFiles{root}
}

// A checkpoint around an agent run: write through it, show the diff, undo.
func Example() {
	ctx := context.Background()
	dir, files := setup()
	defer os.RemoveAll(dir)

	store, err := sqlitestore.Open(ctx, filepath.Join(dir, "..", filepath.Base(dir)+".db"))
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(filepath.Join(dir, "..", filepath.Base(dir)+".db"))
	defer store.Close()
	m, err := checkpoint.New(files, store)
	if err != nil {
		log.Fatal(err)
	}

	cp, err := m.Begin(ctx, "session-1", "make greet louder")
	if err != nil {
		log.Fatal(err)
	}
	call := checkpoint.Call{ID: "call_1", Tool: "edit_file"}
	cp.WriteFile(ctx, call, "greet.go", []byte("package main\n// greet says hello.\nfunc greet() string {\n\treturn \"HELLO\"\n}\n"), 0)
	cp.WriteFile(ctx, checkpoint.Call{ID: "call_2", Tool: "write_file"}, "greet_test.go", []byte("package main\n"), 0)

	d, _ := cp.Diff(ctx)
	for _, f := range d.Files {
		fmt.Printf("%s %s +%d -%d\n", f.Kind, f.Path, f.Added, f.Removed)
	}
	fmt.Print(d.Files[0].Unified)

	rep, err := cp.Undo(ctx, checkpoint.UndoOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("restored", rep.Restored, "removed", rep.Removed)
	data, _ := os.ReadFile(filepath.Join(dir, "greet.go"))
	fmt.Printf("%q\n", data)
	// Output:
	// modified greet.go +1 -1
	// added greet_test.go +1 -0
	// --- a/greet.go
	// +++ b/greet.go
	// @@ -1,5 +1,5 @@
	//  package main
	//  // greet says hello.
	//  func greet() string {
	// -	return "hello"
	// +	return "HELLO"
	//  }
	// restored [greet.go] removed [greet_test.go]
	// "package main\n// greet says hello.\nfunc greet() string {\n\treturn \"hello\"\n}\n"
}

// Undo never overwrites a change the agent did not make.
func ExampleCheckpoint_Undo_conflict() {
	ctx := context.Background()
	dir, files := setup()
	defer os.RemoveAll(dir)
	m, _ := checkpoint.New(files, checkpoint.NewMemoryStore())
	cp, _ := m.Begin(ctx, "s", "")
	cp.WriteFile(ctx, checkpoint.Call{}, "greet.go", []byte("agent\n"), 0)
	os.WriteFile(filepath.Join(dir, "greet.go"), []byte("human\n"), 0o644) // the user edits too

	_, err := cp.Undo(ctx, checkpoint.UndoOptions{})
	fmt.Println(errors.Is(err, checkpoint.ErrConflict))
	data, _ := os.ReadFile(filepath.Join(dir, "greet.go"))
	fmt.Printf("%q\n", data)
	// Output:
	// true
	// "human\n"
}

// Per-tool-call stats feed "+N −N" badges in a UI.
func ExampleCheckpoint_Calls() {
	ctx := context.Background()
	dir, files := setup()
	defer os.RemoveAll(dir)
	m, _ := checkpoint.New(files, checkpoint.NewMemoryStore())
	cp, _ := m.Begin(ctx, "s", "")
	cp.WriteFile(ctx, checkpoint.Call{ID: "c1", Tool: "write_file"}, "a.txt", []byte("1\n2\n3\n"), 0)
	cp.WriteFile(ctx, checkpoint.Call{ID: "c2", Tool: "edit_file"}, "a.txt", []byte("1\nTWO\n3\n"), 0)
	calls, _ := cp.Calls(ctx)
	for _, c := range calls {
		fmt.Printf("%s %s %v +%d -%d\n", c.Call.ID, c.Call.Tool, c.Paths, c.Added, c.Removed)
	}
	// Output:
	// c1 write_file [a.txt] +3 -0
	// c2 edit_file [a.txt] +1 -1
}

// Review hunk by hunk: reject one change and keep the rest. Changes more
// than 2×ContextLines lines apart are separate hunks.
func ExampleCheckpoint_RejectHunk() {
	ctx := context.Background()
	dir, files := setup()
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "list.txt"), []byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"), 0o644)
	m, _ := checkpoint.New(files, checkpoint.NewMemoryStore())
	cp, _ := m.Begin(ctx, "s", "")
	cp.WriteFile(ctx, checkpoint.Call{}, "list.txt", []byte("A\nb\nc\nd\ne\nf\ng\nh\ni\nJ\n"), 0)
	hunks, _ := cp.Hunks(ctx, "list.txt")
	for _, h := range hunks {
		fmt.Printf("hunk at line %d: +%d -%d\n", h.OldStart, h.Added, h.Removed)
	}
	if err := cp.RejectHunk(ctx, "list.txt", hunks[1].ID, checkpoint.UndoOptions{}); err != nil {
		log.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "list.txt"))
	fmt.Printf("%q\n", data)
	// Output:
	// hunk at line 1: +1 -1
	// hunk at line 7: +1 -1
	// "A\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
}
