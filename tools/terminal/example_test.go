package terminal_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/tetherdev/tether/tools/terminal"
)

// A Shell carries the working directory and exported variables from one
// command to the next, as a terminal does, while each command runs in a
// process group of its own. Only variables safety rates harmless are
// carried (NODE_ENV is; BASH_ENV or an unknown name is not).
func ExampleShell() {
	root, err := os.MkdirTemp("", "terminal-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)

	sh, err := terminal.New(terminal.Config{Root: root})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for _, cmd := range []string{
		"mkdir -p sub && cd sub && export NODE_ENV=production",
		`echo "$NODE_ENV in $(basename "$PWD")"`,
		"exit 3",
	} {
		res, err := sh.Run(ctx, terminal.Command{Command: cmd})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("exit %d: %q\n", res.ExitCode, res.Output)
	}
	// Output:
	// exit 0: ""
	// exit 0: "production in sub"
	// exit 3: ""
}
