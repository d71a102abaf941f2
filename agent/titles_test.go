package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// TestHostToolTitle: a host's own tool titles its calls (tools.Titler),
// and the events carry that title, its detail and kind, the call's
// arguments while it runs and the result's metadata when it is done.
func TestHostToolTitle(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"deploy","arguments":{"service":"billing","region":"eu"}}]}
{"content":"Deployed."}`, nil)
	type deployArgs struct {
		Service string `json:"service"`
		Region  string `json:"region"`
	}
	deploy := tools.New("deploy", "Deploy a service.",
		func(_ context.Context, a deployArgs) (tools.Result, error) {
			return tools.Result{Text: "deployed " + a.Service, Metadata: map[string]any{"release": "r42"}}, nil
		},
		tools.ReadOnly(),
		tools.WithEffects(func(context.Context, deployArgs) (tools.Effects, error) {
			return tools.Effects{Annotations: tools.Annotations{ReadOnly: true}}, nil
		}),
		tools.WithTitle(func(c tools.Call, _ tools.Effects) tools.Title {
			t := tools.Verb("Deploying ", "Deployed ", "Deploy ", c.StringArg("service"), tools.KindCommand)
			t.Detail = "region " + c.StringArg("region")
			return t
		}))
	if err := e.reg.Register(deploy); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(e.config(), "deploy billing"); err != nil {
		t.Fatal(err)
	}
	var running, done *event.ToolAction
	for _, a := range eventsOf[event.ToolAction](e.rec) {
		if a.Tool != "deploy" {
			continue
		}
		switch a.Status {
		case event.StatusRunning:
			running = &a
		case event.StatusSuccess:
			done = &a
		}
	}
	if running == nil || done == nil {
		t.Fatalf("want a running and a successful deploy action; got %+v", e.rec.actions())
	}
	if running.Title != "Deploying billing" || running.Detail != "region eu" || running.Kind != tools.KindCommand {
		t.Errorf("running action = %q / %q / %q, want the tool's own title, detail and kind", running.Title, running.Detail, running.Kind)
	}
	var args map[string]string
	if err := json.Unmarshal(running.Arguments, &args); err != nil || args["service"] != "billing" {
		t.Errorf("running action arguments = %s, want the call's", running.Arguments)
	}
	if done.Title != "Deployed billing" || done.Metadata["release"] != "r42" || done.Arguments != nil {
		t.Errorf("final action = %q, metadata %v, arguments %s; want the done title and the result's metadata only", done.Title, done.Metadata, done.Arguments)
	}
}

// TestHostToolDefaultTitle: a tool that gives no title is named by the
// default, which says which file it works on.
func TestHostToolDefaultTitle(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"lint","arguments":{"path":"a.go"}}]}
{"content":"ok"}`, map[string]string{"a.go": "package a\n"})
	err := e.reg.Register(tools.Func{Spec: tools.Spec{Name: "lint", ReadOnly: true},
		Run: func(context.Context, tools.Call) (tools.Result, error) { return tools.Text("clean"), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(e.config(), "lint a.go"); err != nil {
		t.Fatal(err)
	}
	acts := eventsOf[event.ToolAction](e.rec)
	if len(acts) != 2 || acts[0].Title != "Running lint on a.go" || acts[1].Title != "Ran lint on a.go" {
		t.Errorf("actions = %+v, want the default title naming the file", acts)
	}
}
