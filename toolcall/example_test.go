package toolcall_test

import (
	"fmt"

	"github.com/tetherdev/tether/toolcall"
)

func ExampleParse() {
	r := toolcall.Parse(`I'll read it first.
<tool_call>{"name": "read_file", "arguments": {"path": "go.mod"}}</tool_call>
Then I'll explain.`)
	for _, c := range r.Calls {
		fmt.Printf("%s %s\n", c.Name, c.Arguments)
	}
	fmt.Printf("%q\n", r.Text)
	// Output:
	// read_file {"path": "go.mod"}
	// "I'll read it first.\n\nThen I'll explain."
}

func ExampleParse_failure() {
	r := toolcall.Parse(`<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>
<tool_call>{"name": "read_file", "arguments": {path: "a"}}</tool_call>`)
	fmt.Println(len(r.Calls), r.Calls[0].Name)
	for _, f := range r.Failures {
		fmt.Println(f.Reason)
	}
	// Output:
	// 1 list_dir
	// invalid JSON: unexpected 'p', expected a quoted object key at byte 36
}

func ExampleParse_truncated() {
	// The model was cut off after a complete value: the call is repaired.
	r := toolcall.Parse(`<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi"`)
	fmt.Println(r.Calls[0].Name, string(r.Calls[0].Arguments), r.Calls[0].Repaired)
	// Cut inside a string: no call, and a failure that says why.
	r = toolcall.Parse(`<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content": "h`)
	fmt.Println(len(r.Calls), r.Failures[0].Reason)
	// Output:
	// write_file {"path": "a.txt", "content": "hi"} true
	// 0 output ended inside a string; the call was not used
}

func ExampleStream() {
	s := toolcall.NewStream()
	chunks := []string{"Writing ", "it now. <tool", `_call>{"name": "write_file", "arguments": {"path": "main.go", `, `"content": "package main\n"}}</tool_call>`}
	show := func(events []toolcall.Event) {
		for _, e := range events {
			switch e.Kind {
			case toolcall.EventText:
				fmt.Printf("text %q\n", e.Text)
			case toolcall.EventCallName:
				fmt.Println("calling", e.Name)
			case toolcall.EventCallPath:
				fmt.Printf("Writing %s…\n", e.Path)
			case toolcall.EventCall:
				fmt.Println("call", e.Call.Name, "complete")
			}
		}
	}
	for _, c := range chunks {
		show(s.Feed(c))
	}
	// The call follows prose on its line, so it is confirmed once the
	// line is seen to end (here, with the message): markup inside a
	// sentence would be a mention.
	show(s.Flush())
	r := s.Close()
	fmt.Println(len(r.Calls), r.Text == toolcall.Parse(chunks[0]+chunks[1]+chunks[2]+chunks[3]).Text)
	// Output:
	// text "Writing "
	// text "it now. "
	// calling write_file
	// Writing main.go…
	// call write_file complete
	// 1 true
}

func ExampleWithTools() {
	in := `{"name": "read_file", "path": "README.md"}`
	// Without an allow-list, an object with a name but no arguments key is
	// not trusted as a call: it could be any JSON.
	fmt.Println(len(toolcall.Parse(in).Calls))
	// With one, a listed name is enough.
	r := toolcall.ParseWith(in, toolcall.WithTools("read_file", "write_file"))
	fmt.Println(r.Calls[0].Name, string(r.Calls[0].Arguments))
	// Output:
	// 0
	// read_file {"path":"README.md"}
}

func Example_envelope() {
	r := toolcall.Parse("```yips-agent\n" + `{"assistant_text": "Listing files.", "actions": [
  {"type": "tool", "id": "t1", "name": "list_dir", "arguments": {"path": "."}},
  {"type": "tool", "id": "t1", "name": "read_file", "arguments": {"path": "x"}}]}` + "\n```")
	fmt.Println(r.Text)
	fmt.Println(r.Calls[0].ID, r.Calls[0].Name)
	fmt.Println(r.Warnings[0].Reason)
	// Output:
	// Listing files.
	// t1 list_dir
	// actions[1]: duplicate id "t1"; the later action was dropped
}
