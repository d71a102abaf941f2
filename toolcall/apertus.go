package toolcall

import (
	"bytes"
	"encoding/json"
)

// Apertus (swiss-ai's chat format; llama.cpp's Apertus parser) writes its
// calls as a JSON list of one-key objects, the key naming the tool and the
// value holding its arguments:
//
//	<|tools_prefix|>[{"get_weather": {"city": "Bern"}}, {"now": {}}]<|tools_suffix|>
//
// and its reasoning between <|inner_prefix|> and <|inner_suffix|>
// (thinkTags).

const apertusOpen = "<|tools_prefix|>"

// finishKeyed turns an Apertus list (or a single object) into calls.
func (s *Stream) finishKeyed(v []byte) bool {
	var items []map[string]json.RawMessage
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '{' {
		v = append(append([]byte{'['}, v...), ']')
	}
	if err := json.Unmarshal(v, &items); err != nil {
		return s.failItem(ErrNotACall, "expected a list of {\"TOOL_NAME\": {arguments}} objects")
	}
	for _, it := range items {
		if len(it) != 1 {
			return s.failItem(ErrNotACall, "each call must be one {\"TOOL_NAME\": {arguments}} object")
		}
		for name, args := range it {
			a := bytes.TrimSpace(args)
			if !validName(name) {
				return s.failItem(ErrNotACall, nameReason(name))
			}
			if len(a) == 0 || a[0] != '{' {
				return s.failItem(ErrBadArguments, "the arguments of "+name+" must be a JSON object")
			}
			if !s.cfg.allowed(name) {
				return s.failItem(ErrUnknownTool, s.cfg.unknownToolReason(name))
			}
			s.blk.calls = append(s.blk.calls, Call{Name: name, Arguments: a, Kind: "tool", Format: s.blk.format, Repaired: s.blk.repaired})
		}
	}
	return true
}
