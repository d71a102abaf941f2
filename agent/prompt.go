package agent

import (
	"slices"
	"strings"

	"github.com/tetherdev/tether/tools"
)

// promptBuilder assembles the system prompt, section by section:
//
//	role (per mode) · RULES (agent mode) · USER-PROVIDED CONTEXT ·
//	SEARCH TIPS · CODE NAVIGATION STRATEGY (the last three with the lines
//	the offered tools give them, tools.Guidance) · SKILLS AND
//	SUBAGENTS (when offered) · call format and tool list (text and
//	envelope modes) · completion rule · host prompt · PROJECT CONTEXT ·
//	SESSION MEMORY
//
// The output is a pure function of the fields, so golden files pin it.
// The project context is a section of the one system message, not a
// second system message, because several chat templates reject or drop
// a second one.
// Sections that change during a run (session memory) come last, so a
// backend that caches the prompt prefix (llama.cpp, vLLM) reuses
// everything above them. Its wording is its own business: the executor
// only asks for the text.
type promptBuilder struct {
	mode    ModeSpec
	calling ToolCalling
	tools   string   // the registry's text description of the offered tools (text and envelope modes)
	names   []string // the canonical names of the offered tools
	// guide returns the lines the offered tools give a prompt section
	// (tools.Guidance); nil offers none.
	guide   func(section string) []string
	extra   string // Config.SystemPrompt
	project string // rendered project context; "" for none
	memory  string // rendered session memory; "" for none
	compact bool   // the compact form, for a small context window (see compactSystem)
}

// agentRules are the rules of a mode that may change things; the offered
// tools add their own lines after the first (tools.SectionRules).
var agentRules = []string{
	"Paths are relative to the workspace root.",
	"Commands may need the user's approval; a denied action will not run, so do not retry it unchanged.",
}

const completionRule = "When the task is complete, give a short summary of what you did and end your message with " + CompletionSignal + "."

// userContextSection tells the model how attached code reaches it; its
// labels match what [FormatUserContext] writes.
const userContextSection = `USER-PROVIDED CONTEXT:
The user may attach code from their editor to the message. This appears at the start of their message in blocks like:
  User's selected code from file.go:L10-L50 (already provided — do not re-read): (selected lines 10–50)
  Contents of file.go (already provided — do not re-read): (whole file)
The code inside those blocks is ALREADY AVAILABLE to you — do NOT read it again.
Use the provided content directly for analysis, explanation, or edits.
Only read the file if you need lines OUTSIDE the provided range, or a different file entirely.`

func (p promptBuilder) system() string {
	if p.compact {
		return p.compactSystem()
	}
	var b strings.Builder
	section := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(s)
		}
	}
	role := p.mode.Role
	if role == "" {
		role = builtinModes[0].Role // the agent's
	}
	section(role)
	if !p.mode.ReadOnly {
		rules := slices.Insert(slices.Clone(agentRules), 1, p.guidance(tools.SectionRules)...)
		section(bulleted(tools.SectionRules, rules))
	}
	section(userContextSection)
	section(bulleted(tools.SectionSearch, p.guidance(tools.SectionSearch)))
	if nav := p.guidance(tools.SectionNavigation); len(nav) > 0 {
		section(bulleted(tools.SectionNavigation, append(nav, "Prefer these tools to reading whole files: they are cheaper and precise.")))
	}
	section(p.skillSection())
	switch p.calling {
	case ToolCallingText:
		section(textCallFormat)
		section(p.toolSection())
	case ToolCallingEnvelope:
		section(envelopeCallFormat)
		section(p.toolSection())
	}
	section(completionRule)
	section(p.mode.Prompt)
	section(p.extra)
	if p.project != "" {
		section("PROJECT CONTEXT (instructions and facts from the workspace; follow its instructions unless the user says otherwise):\n\n" + p.project)
	}
	if p.memory != "" {
		section("SESSION MEMORY (what you have done so far in this session; trust it instead of repeating work):\n" + p.memory)
	}
	return b.String()
}

func (p promptBuilder) offers(names ...string) bool {
	for _, n := range names {
		if slices.Contains(p.names, n) {
			return true
		}
	}
	return false
}

func (p promptBuilder) guidance(section string) []string {
	if p.guide == nil {
		return nil
	}
	return p.guide(section)
}

// bulleted is a prompt section: its heading, then one "- " line each;
// "" without lines.
func bulleted(heading string, lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return heading + ":\n- " + strings.Join(lines, "\n- ")
}

// skillSection explains skills and subagents when they are offered; in
// envelope mode it also gives their action types.
func (p promptBuilder) skillSection() string {
	var lines, skills []string
	for _, n := range p.names {
		if strings.HasPrefix(n, SkillNamespace+"__") {
			skills = append(skills, n)
		}
	}
	if len(skills) > 0 {
		l := "- Skills are larger capabilities the agent runs for you: " + strings.Join(skills, ", ") + "."
		if p.offers(SkillNamespace + "__todos") {
			l += " For a task of several steps, write your plan with " + SkillNamespace + "__todos first and update it as steps finish: the user follows it."
		}
		if p.offers(SkillNamespace + "__build") {
			l += " Check your changes with " + SkillNamespace + "__build (action build or test)."
		}
		if p.calling == ToolCallingEnvelope {
			l += ` Call a skill with an action {"type": "skill", "id": "s1", "name": "todos", "arguments": {…}}.`
		}
		lines = append(lines, l)
	}
	if p.offers(SubagentToolName) {
		l := "- subagent hands a self-contained sub-task (research across many files, a focused investigation) to a helper agent with its own tool budget; its final answer comes back as the result. Give it a complete task description: it does not see this conversation."
		if p.calling == ToolCallingEnvelope {
			l += ` Use an action {"type": "subagent", "id": "a1", "task": "…", "max_rounds": 4}.`
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return ""
	}
	return "SKILLS AND SUBAGENTS:\n" + strings.Join(lines, "\n")
}

func (p promptBuilder) toolSection() string {
	if strings.TrimSpace(p.tools) == "" {
		return "No tools are available."
	}
	return "AVAILABLE TOOLS:\n\n" + strings.TrimRight(p.tools, "\n")
}

const textCallFormat = `TOOL CALLS: to use a tool, write the call in your message in exactly this format, one block per call:

<tool_call>{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}</tool_call>

The JSON must be valid: double quotes, escaped newlines (\n) and quotes (\") inside strings. You may make several calls in one message; they run in order. ` +
	`After your calls, stop and wait: the results come back in the next message, inside <tool_result> blocks. Never write a <tool_result> yourself.`

const envelopeCallFormat = "ACTIONS: to use tools, end your message with exactly one fenced block in this format:\n\n" +
	"```yips-agent\n{\n  \"assistant_text\": \"what you tell the user (optional)\",\n  \"actions\": [\n    {\"type\": \"tool\", \"id\": \"t1\", \"name\": \"TOOL_NAME\", \"arguments\": {\"ARGUMENT\": \"VALUE\"}}\n  ]\n}\n```\n\n" +
	"Use one block per message, valid JSON, and a unique id for each action. The results come back as \"Action results:\". " +
	"When no action is needed, answer in plain text without a block."
