package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

func Example() {
	dir, _ := os.MkdirTemp("", "tether-example")
	defer os.RemoveAll(dir)
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		panic(err)
	}
	defer ws.Close()

	var reg tools.Registry
	if _, err := builtin.Register(&reg, ws, builtin.Options{}); err != nil {
		panic(err)
	}
	ctx := context.Background()
	do := func(name, args string) {
		res := reg.Execute(ctx, tools.Call{Name: name, Arguments: json.RawMessage(args)})
		fmt.Println(res.Text)
	}
	do("write_file", `{"path":"notes/todo.txt","content":"buy milk\nfix bug\n"}`)
	do("edit_file", `{"path":"notes/todo.txt","old_text":"fix bug","new_text":"fix the parser bug"}`)
	do("read_file", `{"path":"notes/todo.txt"}`)
	do("search_workspace", `{"query":"(?i)PARSER","isRegex":true}`)
	do("run_terminal_command", `{"command":"wc -l < notes/todo.txt"}`)
	// Output:
	// Created notes/todo.txt (2 lines, 17 bytes; +2 -0).
	// Edited notes/todo.txt: replaced 1 occurrence at line 2 (+1 -1).
	// notes/todo.txt (lines 1-2 of 2):
	//      1	buy milk
	//      2	fix the parser bug
	// ── notes/todo.txt ──
	//   1: buy milk
	// → 2: fix the parser bug
	//
	// [1 match in 1 file]
	// 2
	// [exit code: 0]
}
