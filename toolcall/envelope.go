package toolcall

import (
	"encoding/json"
	"fmt"
)

// Yips envelopes (named after the terminal agent that defined them): one
// fenced JSON object per message.
//
//	```yips-agent
//	{"assistant_text": "…", "actions": [{"type": "tool"|"skill"|"subagent", "id": "t1", "name": "…", "arguments": {…}}]}
//	```
//
// and the legacy ```yips-tools {"tool_calls", "skill_calls", "subagent_calls"}.
// Rules: the body is a JSON object; ids are unique within the envelope (a
// later duplicate is dropped with a Warning); malformed actions and names
// outside the allow-list are dropped with a Warning; assistant_text takes
// the envelope's place in Result.Text. A subagent action becomes a call
// named "subagent" whose arguments are the action's other fields (task,
// max_rounds, …); with an allow-list it needs "subagent" on the list.
//
// Small models bend the shape, and what has one meaning is accepted: the
// action's name and arguments under the aliases of call.go (tool, args,
// parameters…), arguments beside the name (every key but type, id and
// the name is then an argument), a missing type on an action that has a
// name (a tool call), a fence labelled json or not labelled, or no fence
// at all, when the keys say it is an envelope ("actions", or the legacy
// lists), JSON slips (see json.go), and an envelope cut off by the token
// limit, whose complete actions and assistant_text are kept. An envelope
// without its yips label follows the rule of bare JSON: it must end the
// message, or it is an example.
//
// Exactly one envelope is allowed. Because a stream cannot take back calls
// it has already reported, the first envelope is used and every later one
// is a Failure (ErrMultipleEnvelopes) whose text stays prose.

func (s *Stream) finishEnvelope(v []byte, rawCtl bool) bool {
	k := &s.blk
	if s.envelopes > 0 {
		return s.failItem(ErrMultipleEnvelopes, "expected exactly one ```"+k.yips+" envelope per message; this one was ignored, put every action in the first")
	}
	env, ok := s.readEnvelope(v, rawCtl, k.yips, k.repaired, k.start, s.pos)
	if !ok {
		return s.failItem(ErrInvalidJSON, "the envelope is not a valid JSON object")
	}
	k.envText = env.text
	k.calls = append(k.calls, env.calls...)
	k.warnings = append(k.warnings, env.warnings...)
	return true
}

// envelope is what an envelope yields.
type envelope struct {
	text     string // assistant_text
	calls    []Call
	warnings []Warning
}

// readEnvelope reads the envelope object v (yips is its fence label) and
// applies its rules; start and end delimit it for warnings. It reports
// false when v is not a JSON object.
func (s *Stream) readEnvelope(v []byte, rawCtl bool, yips string, repaired bool, start, end int) (envelope, bool) {
	var out envelope
	if rawCtl {
		v = escapeControl(v)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(v, &env); err != nil {
		return out, false
	}
	if t, ok := env["assistant_text"]; ok {
		var text string
		if json.Unmarshal(t, &text) == nil {
			out.text = text
		}
	}
	warn := func(reason string) {
		out.warnings = append(out.warnings, Warning{Reason: reason, Start: start, End: end})
	}
	seen := map[string]bool{}
	add := func(kind string, raw json.RawMessage, where string) {
		c, why := s.envelopeAction(kind, raw)
		if why != "" {
			warn(where + ": " + why)
			return
		}
		if c.ID != "" {
			if seen[c.ID] {
				warn(fmt.Sprintf("%s: duplicate id %q; the later action was dropped", where, c.ID))
				return
			}
			seen[c.ID] = true
		}
		c.Format = FormatYips
		c.Repaired = c.Repaired || repaired
		out.calls = append(out.calls, c)
	}
	lists := []struct{ key, kind string }{{"actions", ""}}
	if yips == "yips-tools" {
		lists = []struct{ key, kind string }{{"tool_calls", "tool"}, {"skill_calls", "skill"}, {"subagent_calls", "subagent"}}
	}
	for _, l := range lists {
		raw, ok := env[l.key]
		if !ok {
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			warn(fmt.Sprintf("%q must be an array; it was ignored", l.key))
			continue
		}
		for i, a := range list {
			add(l.kind, a, fmt.Sprintf("%s[%d]", l.key, i))
		}
	}
	return out, true
}

// envelopeAction validates one action. kind is "" for yips-agent actions,
// which carry their own "type".
func (s *Stream) envelopeAction(kind string, raw json.RawMessage) (Call, string) {
	var a map[string]json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil || a == nil {
		return Call{}, "an action must be a JSON object; it was dropped"
	}
	str := func(key string) (string, bool) {
		var v string
		r, ok := a[key]
		return v, ok && json.Unmarshal(r, &v) == nil
	}
	if kind == "" {
		t, ok := str("type")
		switch {
		case ok:
			kind = t
		case hasAny(a, nameKeys[:]):
			kind = "tool" // small models leave out the type of a tool call
		default:
			return Call{}, `missing "type" (tool, skill or subagent); the action was dropped`
		}
	}
	c := Call{Kind: kind}
	c.ID, _ = str("id")
	switch kind {
	case "tool", "skill":
		// Small models rename the fields (the one alias table of
		// call.go) or put the arguments beside the name.
		nameKey := ""
		for _, key := range nameKeys {
			if name, ok := str(key); ok && name != "" {
				c.Name, nameKey = name, key
				break
			}
		}
		if c.Name == "" {
			return Call{}, `missing "name"; the action was dropped`
		}
		c.Arguments = json.RawMessage("{}")
		argKey := ""
		for _, key := range argsKeys {
			if _, ok := a[key]; ok {
				argKey = key
				break
			}
		}
		if r := a[argKey]; argKey != "" {
			m := member{valStart: 0, valEnd: len(r), kind: jsonKind(r)}
			args, repaired, why := argumentsValue(r, &m)
			if why != "" {
				return Call{}, why + "; the action was dropped"
			}
			c.Arguments, c.Repaired = args, repaired
		} else {
			// Flattened: every key but the type, id and name.
			delete(a, "type")
			delete(a, "id")
			delete(a, nameKey)
			if len(a) > 0 {
				c.Arguments, _ = json.Marshal(a)
			}
		}
	case "subagent":
		if _, ok := str("task"); !ok {
			return Call{}, `a subagent action needs a "task" string; it was dropped`
		}
		c.Name = "subagent"
		delete(a, "type")
		delete(a, "id")
		args, _ := json.Marshal(a)
		c.Arguments = args
	default:
		return Call{}, fmt.Sprintf("unknown action type %q (want tool, skill or subagent); the action was dropped", kind)
	}
	if !s.cfg.allowed(c.Name) {
		return Call{}, s.cfg.unknownToolReason(c.Name) + "; the action was dropped"
	}
	return c, ""
}

// envelopeLabel names the envelope kind the top-level keys of the object
// v identify, or "": "actions" or "assistant_text" is yips-agent's; the
// legacy lists, or "tool_calls" beside "assistant_text", are
// yips-tools'. A lone
// "tool_calls" is llama.cpp's generic envelope, read as calls before this
// is asked.
func envelopeLabel(v []byte, ms []member) string {
	if v[0] != '{' {
		return ""
	}
	var actions, legacy, toolCalls, text bool
	for _, m := range ms {
		if m.depth != 1 || m.keyStart < 0 {
			continue
		}
		switch string(v[m.keyStart:m.keyEnd]) {
		case "actions":
			actions = m.kind == '['
		case "skill_calls", "subagent_calls":
			legacy = legacy || m.kind == '['
		case "tool_calls":
			toolCalls = m.kind == '['
		case "assistant_text":
			text = m.kind == '"'
		}
	}
	switch {
	case legacy || toolCalls && text:
		return "yips-tools"
	case actions || text:
		return "yips-agent"
	}
	return ""
}

func hasAny(a map[string]json.RawMessage, keys []string) bool {
	for _, k := range keys {
		if _, ok := a[k]; ok {
			return true
		}
	}
	return false
}

// jsonKind classifies a valid JSON value by its first byte.
func jsonKind(r []byte) byte {
	for _, c := range r {
		switch {
		case isSpace(c):
			continue
		case c == '-' || c >= '0' && c <= '9':
			return '0'
		}
		return c
	}
	return 'n'
}
