package safety

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// AutoApprovePattern is one entry of the `sensitiveFilePatterns` setting
// that VS Code Ollama agents use to mark which edits need approval:
//
//	{ "pattern": "**/.env", "value": false }
//
// ┌───────────────────────────────────────────────────────────────────────┐
// │ THE BOOLEAN IS INVERTED. value answers "may edits to this file be     │
// │ AUTO-APPROVED?", not "is this file sensitive?".                       │
// │   value: true   → auto-approve, the file is NOT sensitive             │
// │   value: false  → ask first,    the file IS sensitive                 │
// └───────────────────────────────────────────────────────────────────────┘
//
// Tether's own SensitivityRule says what it means (Sensitive: true means ask
// first); use this type only to read existing configurations. Writing
// {"pattern": "**/.env", "value": true} in the belief that it marks .env as
// sensitive is the classic mistake; the built-in floor keeps .env sensitive
// regardless, but a project-specific file would silently lose approval.
type AutoApprovePattern struct {
	Pattern string `json:"pattern"`
	// Value true means AUTO-APPROVE (not sensitive). Required: a missing
	// value is an error rather than a silent default.
	Value *bool `json:"value"`
}

// Rule converts the entry to a SensitivityRule, inverting the boolean.
func (p AutoApprovePattern) Rule() SensitivityRule {
	autoApprove := p.Value != nil && *p.Value
	return SensitivityRule{Pattern: p.Pattern, Sensitive: !autoApprove}
}

// ParseAutoApprovePatterns reads a `sensitiveFilePatterns` JSON setting, either
// the bare array or an object holding it under that key, and returns the
// equivalent rules in order (last match wins, as in that setting). Remember:
// there, value true means auto-approve (NOT sensitive); see AutoApprovePattern.
//
// Unknown fields, a missing or non-boolean value and malformed globs are
// errors naming the entry, because a misread security setting must not load.
func ParseAutoApprovePatterns(data []byte) ([]SensitivityRule, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var wrapper struct {
			Patterns json.RawMessage `json:"sensitiveFilePatterns"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&wrapper); err != nil {
			return nil, fmt.Errorf("safety: sensitiveFilePatterns: %w (want an array of {\"pattern\", \"value\"} or an object with key \"sensitiveFilePatterns\")", err)
		}
		if wrapper.Patterns == nil {
			return nil, fmt.Errorf("safety: sensitiveFilePatterns: object has no \"sensitiveFilePatterns\" key")
		}
		data = wrapper.Patterns
	}
	var entries []AutoApprovePattern
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("safety: sensitiveFilePatterns: %w (want an array of {\"pattern\": string, \"value\": bool}, value true = auto-approve)", err)
	}
	rules := make([]SensitivityRule, 0, len(entries))
	for i, e := range entries {
		if e.Value == nil {
			return nil, fmt.Errorf("safety: sensitiveFilePatterns entry %d (%q): missing \"value\" (true = auto-approve, false = ask first)", i+1, e.Pattern)
		}
		r := e.Rule()
		if _, err := compileRule(r); err != nil {
			return nil, fmt.Errorf("safety: sensitiveFilePatterns entry %d: %w", i+1, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}
