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
// Exactly one envelope is allowed. Because a stream cannot take back calls
// it has already reported, the first envelope is used and every later one
// is a Failure (ErrMultipleEnvelopes) whose text stays prose.

func (s *Stream) finishEnvelope(v []byte, rawCtl bool) bool {
	k := &s.blk
	if s.envelopes > 0 {
		return s.failItem(ErrMultipleEnvelopes, "expected exactly one ```"+k.yips+" envelope per message; this one was ignored, put every action in the first")
	}
	if rawCtl {
		v = escapeControl(v)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(v, &env); err != nil {
		return s.failItem(ErrInvalidJSON, "the envelope is not a valid JSON object: "+err.Error())
	}
	if t, ok := env["assistant_text"]; ok {
		var text string
		if json.Unmarshal(t, &text) == nil {
			k.envText = text
		}
	}
	seen := map[string]bool{}
	add := func(kind string, raw json.RawMessage, where string) {
		c, why := s.envelopeAction(kind, raw)
		if why != "" {
			k.warnings = append(k.warnings, Warning{Reason: where + ": " + why, Start: k.start, End: s.pos})
			return
		}
		if c.ID != "" {
			if seen[c.ID] {
				k.warnings = append(k.warnings, Warning{Reason: fmt.Sprintf("%s: duplicate id %q; the later action was dropped", where, c.ID), Start: k.start, End: s.pos})
				return
			}
			seen[c.ID] = true
		}
		c.Format = FormatYips
		c.Repaired = k.repaired
		k.calls = append(k.calls, c)
	}
	lists := []struct{ key, kind string }{{"actions", ""}}
	if k.yips == "yips-tools" {
		lists = []struct{ key, kind string }{{"tool_calls", "tool"}, {"skill_calls", "skill"}, {"subagent_calls", "subagent"}}
	}
	for _, l := range lists {
		raw, ok := env[l.key]
		if !ok {
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			k.warnings = append(k.warnings, Warning{Reason: fmt.Sprintf("%q must be an array; it was ignored", l.key), Start: k.start, End: s.pos})
			continue
		}
		for i, a := range list {
			add(l.kind, a, fmt.Sprintf("%s[%d]", l.key, i))
		}
	}
	return true
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
		if !ok {
			return Call{}, `missing "type" (tool, skill or subagent); the action was dropped`
		}
		kind = t
	}
	c := Call{Kind: kind}
	c.ID, _ = str("id")
	switch kind {
	case "tool", "skill":
		name, ok := str("name")
		if !ok || name == "" {
			return Call{}, `missing "name"; the action was dropped`
		}
		c.Name = name
		c.Arguments = json.RawMessage("{}")
		if r, ok := a["arguments"]; ok {
			m := member{valStart: 0, valEnd: len(r), kind: jsonKind(r)}
			args, why := argumentsValue(r, &m)
			if why != "" {
				return Call{}, why + "; the action was dropped"
			}
			c.Arguments = args
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
