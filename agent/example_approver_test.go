package agent_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm/scripted"
	"github.com/tetherdev/tether/tools"
)

type issueArgs struct {
	Number int `json:"number" jsonschema:"description=The issue number,minimum=1"`
}

// A host's own typed tool, and an approver for it. The tool declares no
// effects, so every call of it is confirm-level and reaches the approver,
// which here allows it by name and would ask a person about anything else.
func Example_typedToolAndApprover() {
	closeIssue := tools.New("close_issue", "Close an issue in the tracker.",
		func(ctx context.Context, a issueArgs) (tools.Result, error) {
			return tools.Text(fmt.Sprintf("closed #%d", a.Number)), nil
		},
		tools.WithArgAliases("number", "id", "issue"),
	)
	var reg tools.Registry
	if err := reg.Register(closeIssue); err != nil {
		log.Fatal(err)
	}
	s, err := scripted.ParseScript(strings.NewReader(`{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"close_issue","arguments":{"id":"42"}}]}
{"content":"Closed issue 42. [TASK_COMPLETE]"}
`))
	if err != nil {
		log.Fatal(err)
	}
	x, err := agent.New(agent.Config{
		Model: scripted.New(s),
		Tools: &reg,
		Approver: approval.Func(func(ctx context.Context, req approval.Request) (approval.Response, error) {
			d := req.Display() // escaped: safe to show a person
			fmt.Println("asked:", d.Subject, "-", d.Reasons[len(d.Reasons)-1])
			if req.ToolName == "close_issue" {
				return approval.Response{Choice: approval.AllowOnce, Reason: "tracker writes are fine"}, nil
			}
			return approval.Response{Choice: approval.Deny, Message: "Ask the user first."}, nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := x.Run(context.Background(), agent.Input{Prompt: "Close issue 42"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.FinalMessage)
	// Output:
	// asked: run the close_issue tool - arguments: {"number":42}
	// Closed issue 42.
}
