package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// todoBox is the checkbox a plan item is shown with in the prompt.
func todoBox(s event.TodoStatus) string {
	switch s {
	case event.TodoDone:
		return "[x]"
	case event.TodoInProgress:
		return "[~]"
	}
	return "[ ]"
}

// maxTodos bounds the plan: a longer one is a sign of a model looping.
const maxTodos = 30

const todosDescription = "Keep your plan for this task as a checklist the user can see. Send the whole list each time, with each step's status " +
	"(pending, in_progress or done): write it when you start a multi-step task, and update it as steps finish. " +
	`Example: {"todos": [{"text": "Find the failing test", "status": "done"}, {"text": "Fix the parser", "status": "in_progress"}]}. Returns the list as recorded.`

// TodosSkill returns the "todos" skill: the model writes its plan as a
// checklist, the run sends it to the host as an event.TodosUpdated and
// keeps it in the session memory, where the model sees it every
// iteration, even after older turns were compacted away.
func TodosSkill() Skill {
	return SkillFunc{Spec: tools.Spec{
		Name:        "todos",
		Description: todosDescription,
		ReadOnly:    true, // it changes no file: read-only modes may plan too
		Parameters: json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","description":"The whole plan, in order.","items":{"type":"object",` +
			`"properties":{"text":{"type":"string","description":"What the step does."},"status":{"type":"string","enum":["pending","in_progress","done"]}},"required":["text","status"]}}},"required":["todos"]}`),
	}, Run: runTodos}
}

func runTodos(_ context.Context, env SkillEnv, args json.RawMessage) SkillResult {
	items, err := parseTodos(args)
	if err != nil {
		return SkillResult{Text: "Error: " + err.Error(), Status: event.StatusError}
	}
	if env.SetPlan != nil {
		env.SetPlan(items)
	}
	if env.Emit != nil {
		env.Emit(event.TodosUpdated{CallID: env.CallID, Items: items})
	}
	done := 0
	var b strings.Builder
	for _, t := range items {
		if t.Status == event.TodoDone {
			done++
		}
		fmt.Fprintf(&b, "%s %s\n", todoBox(t.Status), t.Text)
	}
	return SkillResult{Text: fmt.Sprintf("Plan recorded (%d of %d done):\n%s", done, len(items), b.String()),
		Detail: fmt.Sprintf("%d of %d done", done, len(items))}
}

// parseTodos accepts what models send: {"todos": [...]}, or "items" /
// "plan" / "tasks" for the list; "text", "content", "title" or "task"
// for a step; "status" or "state", with done synonyms (completed,
// complete, finished) and in-progress ones (in-progress, active, doing).
// A bare string step is pending.
func parseTodos(args json.RawMessage) ([]event.TodoItem, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(args, &top); err != nil {
		return nil, fmt.Errorf(`the arguments must be a JSON object {"todos": [{"text": "…", "status": "pending"}]}`)
	}
	var list []json.RawMessage
	found := false
	for _, k := range []string{"todos", "items", "plan", "tasks", "steps"} {
		if v, ok := top[k]; ok {
			if err := json.Unmarshal(v, &list); err != nil {
				return nil, fmt.Errorf("%q must be an array of steps", k)
			}
			found = true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf(`missing "todos": send the whole plan as {"todos": [{"text": "…", "status": "pending|in_progress|done"}]}`)
	}
	if len(list) > maxTodos {
		return nil, fmt.Errorf("the plan has %d steps; keep it to %d or fewer by merging small steps", len(list), maxTodos)
	}
	items := make([]event.TodoItem, 0, len(list))
	for i, raw := range list {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			items = append(items, event.TodoItem{Text: strings.TrimSpace(s), Status: event.TodoPending})
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("step %d is neither a string nor an object", i+1)
		}
		var t event.TodoItem
		for _, k := range []string{"text", "content", "title", "task", "description"} {
			if v, ok := m[k].(string); ok && strings.TrimSpace(v) != "" {
				t.Text = strings.TrimSpace(v)
				break
			}
		}
		if t.Text == "" {
			return nil, fmt.Errorf(`step %d has no "text"`, i+1)
		}
		st, _ := m["status"].(string)
		if st == "" {
			st, _ = m["state"].(string)
		}
		if b, ok := m["done"].(bool); ok && b {
			st = "done"
		}
		status, ok := todoStatus(st)
		if !ok {
			return nil, fmt.Errorf(`step %d (%q) has status %q; use "pending", "in_progress" or "done"`, i+1, excerpt(t.Text, 40), st)
		}
		t.Status = status
		items = append(items, t)
	}
	return items, nil
}

func todoStatus(s string) (event.TodoStatus, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "pending", "todo", "not_started", "open":
		return event.TodoPending, true
	case "in_progress", "in-progress", "inprogress", "active", "doing", "started":
		return event.TodoInProgress, true
	case "done", "completed", "complete", "finished":
		return event.TodoDone, true
	}
	return "", false
}
