package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/internal/textcut"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/toolcall"
)

// call is one tool call of a response, whichever way it arrived.
type call struct {
	ID    string // the model's id, or "call_<iteration>_<n>" when it gave none
	Name  string // as the model wrote it; the runner resolves aliases
	Args  json.RawMessage
	Kind  string // "tool", or a yips action type
	Index int
	// Repaired: the parser closed a call the output cut off, or fixed
	// its JSON; the event stream says so.
	Repaired bool
}

// extraction is what the executor takes from a response: the calls to
// run, and what to tell the model about calls that could not be used.
type extraction struct {
	calls    []call
	problems []string // reasons in words fit for the model, one per bad call
	notRun   []string // calls shown rather than made, in words for the model (notrun.go)
	fromText bool     // native mode, but the calls were written in text
}

// extractCalls finds a response's calls: native calls from the
// backend, or calls parsed from text (text and envelope modes, and
// native models that wrote their calls in text anyway). Calls are never
// de-duplicated: a model that asks twice gets two results.
func extractCalls(mode ToolCalling, r streamResult, iteration int) extraction {
	var x extraction
	id := func(given string, i int) string {
		if given != "" {
			return given
		}
		return fmt.Sprintf("call_%d_%d", iteration, i)
	}
	if mode == ToolCallingNative && len(r.Native) > 0 {
		for i, tc := range r.Native {
			c := call{ID: id(tc.ID, i), Name: tc.Name, Args: tc.Arguments, Kind: "tool", Index: i}
			x.calls = append(x.calls, c)
		}
		return x
	}
	for i, pc := range r.Parsed.Calls {
		kind := pc.Kind
		if kind == "" {
			kind = "tool"
		}
		x.calls = append(x.calls, call{ID: id(pc.ID, i), Name: pc.Name, Args: bytes.Clone(pc.Arguments), Kind: kind, Index: i, Repaired: pc.Repaired})
	}
	x.fromText = mode == ToolCallingNative && len(x.calls) > 0
	for _, f := range r.Parsed.Failures {
		if isMention(f) {
			x.notRun = append(x.notRun, notRunText(f))
			continue
		}
		x.problems = append(x.problems, failureText(mode, f))
	}
	for _, w := range r.Parsed.Warnings {
		x.problems = append(x.problems, "An action in your envelope was dropped: "+w.Reason)
	}
	return x
}

// callProblem checks what a backend delivered natively: a call needs a
// name and a JSON object of arguments. The reason goes back to the model
// as that call's result.
func callProblem(c call) string {
	if strings.TrimSpace(c.Name) == "" {
		return "This tool call has no tool name. Call a tool by its exact name."
	}
	a := bytes.TrimSpace(c.Args)
	if len(a) == 0 || a[0] != '{' || !json.Valid(a) {
		return fmt.Sprintf("The arguments of your %s call are not a JSON object (got %s). Send the arguments as a JSON object such as {\"path\": \"main.go\"}.", c.Name, excerpt(string(a), 120))
	}
	return ""
}

// failureText tells the model why a call block failed and how to write
// it, in the syntax of the current mode.
func failureText(mode ToolCalling, f toolcall.Failure) string {
	format := `<tool_call>{"name": "TOOL_NAME", "arguments": {...}}</tool_call>`
	if mode == ToolCallingEnvelope {
		format = "exactly one ```yips-agent fenced block holding {\"actions\": [{\"type\": \"tool\", \"id\": \"t1\", \"name\": \"TOOL_NAME\", \"arguments\": {...}}]}"
	}
	return fmt.Sprintf("Your tool call could not be parsed: %s.\nWhat you wrote: %s\nWrite it again as %s, with valid JSON.", f.Reason, excerpt(f.Raw, 300), format)
}

// excerpt shortens s for messages, on a rune boundary.
func excerpt(s string, n int) string { return textcut.Excerpt(s, n) }

// assistantMessage is the history entry for a response. Thinking,
// content and tool calls stay together (a model that loses its
// reasoning between iterations loses its chain of thought).
func assistantMessage(mode ToolCalling, r streamResult, x extraction) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: r.Content, Thinking: r.Thinking}
	if mode != ToolCallingNative {
		return m // the calls are in the content, as the model wrote them
	}
	if x.fromText {
		// Calls written in text become native calls, so that their
		// role-tool results have something to answer.
		m.Content = r.Parsed.Text
	}
	for _, c := range x.calls {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c.ID, Index: c.Index, Name: c.Name, Arguments: c.Args})
	}
	return m
}
