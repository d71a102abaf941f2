package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/llm"
)

// resultMessages turns a batch's results into history, in the shape each
// tool-calling mode expects: native results are one role-tool message per
// call carrying tool_name (and the call id), in call order; text-mode
// results are gathered into one user message; envelope results are one "Action
// results:" message. Images a tool returned travel with its result: on
// its tool message, or on the one user message in order. Problems (calls
// that could not be parsed) are told to the model in the same turn so it
// can correct them.
func resultMessages(mode ToolCalling, results []callResult, problems []string) []llm.Message {
	var out []llm.Message
	if mode == ToolCallingNative {
		for _, r := range results {
			out = append(out, llm.Message{Role: llm.RoleTool, Content: withMetadata(r.out.Text, r.out.Metadata), ToolName: r.call.Name, ToolCallID: r.call.ID, Images: r.out.Images})
		}
		if len(problems) > 0 {
			out = append(out, llm.Message{Role: llm.RoleUser, Content: strings.Join(problems, "\n\n")})
		}
		return out
	}
	var b strings.Builder
	var images []llm.Image
	if mode == ToolCallingEnvelope && len(results) > 0 {
		b.WriteString("Action results:\n")
	}
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		images = append(images, r.out.Images...)
		if mode == ToolCallingEnvelope {
			fmt.Fprintf(&b, "- id %s, %s %s: %s\n%s\n", r.call.ID, r.call.Kind, r.call.Name, r.out.Status, indent(withMetadata(r.out.Text, r.out.Metadata)))
			continue
		}
		fmt.Fprintf(&b, "<tool_result name=%q status=%q>\n%s\n</tool_result>\n", r.call.Name, r.out.Status, withMetadata(strings.TrimRight(r.out.Text, "\n"), r.out.Metadata))
	}
	for _, p := range problems {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p)
		b.WriteString("\n")
	}
	if b.Len() > 0 {
		out = append(out, llm.Message{Role: llm.RoleUser, Content: strings.TrimRight(b.String(), "\n"), Images: images})
	}
	return out
}

// withMetadata follows a result's prose with its structured content, as
// one line "metadata: {…}" (keys sorted), so a model told to read
// metadata.token finds it while one that reads prose loses nothing.
func withMetadata(text string, md map[string]any) string {
	if len(md) == 0 {
		return text
	}
	b, err := json.Marshal(md)
	if err != nil {
		return text
	}
	return strings.TrimRight(text, "\n") + "\nmetadata: " + string(b)
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// userNote is a message the loop adds on its own (a reminder, pivot
// guidance). It is a user turn: every chat template accepts one.
func userNote(text string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: text}
}
