package approval_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// Two-phase mutation: preview a change (nothing written), show the diff, then
// apply the token once. A token whose file changed since is refused.
func ExampleStager() {
	dir, _ := os.MkdirTemp("", "stager-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello\nworld\n"), 0o644)

	ws, err := safety.OpenWorkspace(dir, safety.WithLogger(quietLogger))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	stager := approval.NewStager(ws, approval.StagerConfig{Logger: quietLogger})
	ctx := context.Background()

	p, err := stager.PreviewEdit(ctx, "greet.txt", approval.Edit{OldText: "world", NewText: "tether"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(p.Diff)
	fmt.Println(p.Stats)

	applied, err := stager.Apply(ctx, p.Token)
	fmt.Println("applied:", applied.Rel, err)
	_, err = stager.Apply(ctx, p.Token)
	fmt.Println("again:", errors.Is(err, approval.ErrTokenUsed))

	p, _ = stager.PreviewWrite(ctx, "greet.txt", []byte("bye\n"))
	_ = os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("edited by the user\n"), 0o644)
	_, err = stager.Apply(ctx, p.Token)
	fmt.Println("changed:", errors.Is(err, approval.ErrFileChanged))
	// Output:
	// --- a/greet.txt
	// +++ b/greet.txt
	// @@ -1,2 +1,2 @@
	//  hello
	// -world
	// +tether
	// +1 −1
	// applied: greet.txt <nil>
	// again: true
	// changed: true
}

// Seed 004's compatibility mode: a legacy write_file call is staged, and the
// model gets the token and diff instead of a written file.
func ExamplePreview_Result() {
	dir, _ := os.MkdirTemp("", "stager-example")
	defer os.RemoveAll(dir)
	ws, _ := safety.OpenWorkspace(dir, safety.WithLogger(quietLogger))
	defer ws.Close()
	stager := approval.NewStager(ws, approval.StagerConfig{Logger: quietLogger})

	p, _ := stager.PreviewWrite(context.Background(), "notes.md", []byte("# Notes\n"))
	r := p.Result(true)
	fmt.Println(r.Path, r.Created, r.Added, r.Removed, r.LegacyTranslated)
	fmt.Print(r.DiffPreview)
	// Output:
	// notes.md true 1 0 true
	// --- /dev/null
	// +++ b/notes.md
	// @@ -0,0 +1 @@
	// +# Notes
}
