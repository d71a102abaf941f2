package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/tools"
)

type greetArgs struct {
	Name  string `json:"name" jsonschema:"description=Who to greet"`
	Times int    `json:"times,omitempty" jsonschema:"minimum=1,maximum=5"`
}

func greet(_ context.Context, a greetArgs) (tools.Result, error) {
	return tools.Text(strings.TrimSpace(strings.Repeat("hello "+a.Name+"\n", max(a.Times, 1)))), nil
}

func ExampleNew() {
	t := tools.New("greet", "Greet someone.", greet, tools.ReadOnly())
	fmt.Println(string(t.Describe().Parameters))
	// Output:
	// {"properties":{"name":{"type":"string","description":"Who to greet"},"times":{"type":"integer","maximum":5,"minimum":1}},"type":"object","required":["name"]}
}

func ExampleRegistry_Execute() {
	var r tools.Registry
	if err := r.Register(tools.New("greet", "Greet someone.", greet)); err != nil {
		panic(err)
	}
	ctx := context.Background()
	// A small model's call: stringified number, camel-cased tool name.
	res := r.Execute(ctx, tools.Call{Name: "Greet", Arguments: json.RawMessage(`{"name":"Ada","times":"2"}`)})
	fmt.Println(res.Text)
	// A call missing its required argument.
	res = r.Execute(ctx, tools.Call{Name: "greet", Arguments: json.RawMessage(`{"times":9}`)})
	fmt.Println(res.Text)
	// Output:
	// hello Ada
	// hello Ada
	// Error: invalid arguments for greet:
	// - missing required "name" (string): Who to greet
	// - "times" must be at most 5, got 9
	// Expected arguments:
	//   "name": string (required): Who to greet
	//   "times": integer
}

func ExampleRegistry_Prompt() {
	var r tools.Registry
	_ = r.Register(tools.New("greet", "Greet someone.", greet))
	fmt.Print(r.Prompt())
	// Output:
	// ### greet
	// Greet someone.
	// Arguments:
	//   "name": string (required): Who to greet
	//   "times": integer
}
