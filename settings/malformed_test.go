package settings

import (
	"errors"
	"strings"
	"testing"
)

// TestMalformed: each broken file gives one error, on one line, naming
// the file, the place and the field, and saying what is allowed.
func TestMalformed(t *testing.T) {
	for _, c := range []struct {
		name, src, field, text string
	}{
		{"empty file", "", "", "write {}"},
		{"not an object", `["go test"]`, "", "one JSON object"},
		{"single quotes", `{'model': 'ollama:x'}`, "", "single quotes"},
		{"unclosed", `{"model": "ollama:x"`, "", "missing"},
		{"misspelt field", `{"modle": "ollama:x"}`, "modle", `did you mean "model"`},
		{"case of a field", `{"DisabledTools": []}`, "DisabledTools", `did you mean "disabledTools"`},
		{"unknown nested field", `{"permissions": {"allowed": ["ls"]}}`, "permissions.allowed", `did you mean "allow"`},
		{"duplicate key", "{\"model\": \"ollama:a\",\n \"model\": \"ollama:b\"}", "model", "given twice (first on line 1)"},
		{"rules as a string", `{"permissions": {"allow": "go test"}}`, "permissions.allow", `write ["go test"]`},
		{"rule of wrong type", `{"permissions": {"deny": [1]}}`, "permissions.deny[0]", "want a string"},
		{"empty rule", `{"permissions": {"deny": [" "]}}`, "permissions.deny[0]", "empty rule"},
		{"pipeline rule", `{"permissions": {"allow": ["curl x | sh"]}}`, "permissions.allow[0]", "pipeline"},
		{"quoted boolean", `{"lsp": "true"}`, "lsp", "without quotes"},
		{"sandbox enum", `{"sandbox": "strict"}`, "sandbox", `"auto", "on", "off"`},
		{"sandbox as object", `{"sandbox": {"enabled": true}}`, "sandbox", `"auto", "on", "off"`},
		{"model without scheme", `{"model": "qwen3:8b"}`, "model", "ollama:NAME"},
		{"negative num_ctx", `{"modelOptions": {"numCtx": -4096}}`, "modelOptions.numCtx", "0 to 10000000"},
		{"fractional num_ctx", `{"modelOptions": {"numCtx": 8192.5}}`, "modelOptions.numCtx", "whole number"},
		{"num_ctx at the top", `{"num_ctx": 8192}`, "num_ctx", "modelOptions.numCtx"},
		{"bad duration", `{"approvalTimeout": 300}`, "approvalTimeout", "duration string"},
		{"bad duration text", `{"approvalTimeout": "five minutes"}`, "approvalTimeout", `"5m"`},
		{"bad glob", `{"sensitiveFiles": ["config/[a-"]}`, "sensitiveFiles[0]", "not a glob"},
		{"mcp server without endpoint", `{"mcpServers": {"gh": {"args": ["x"]}}}`, "mcpServers.gh", `"command"`},
		{"mcp server both", `{"mcpServers": {"gh": {"command": "x", "url": "https://h"}}}`, "mcpServers.gh", "not both"},
		{"mcp url scheme", `{"mcpServers": {"gh": {"url": "ftp://h"}}}`, "mcpServers.gh", "http://"},
		{"mcp name with __", `{"mcpServers": {"a__b": {"command": "x"}}}`, "mcpServers.a__b", "SERVER__TOOL"},
		{"mcp args not list", `{"mcpServers": {"gh": {"command": "x", "args": "--stdio"}}}`, "mcpServers.gh.args", `write ["--stdio"]`},
		{"lsp extension", `{"lspServers": {"zls": {"command": "zls", "languages": {"zig": "zig"}}}}`, "lspServers.zls.languages", "dot"},
		{"mode name", `{"modes": {"Ask Mode": {"tools": ["read_file"]}}}`, `modes.Ask Mode`, "not a mode name"},
		{"mode tool", `{"modes": {"ask": {"tools": ["read file"]}}}`, "modes.ask.tools[0]", "not a tool name"},
		{"web domain url", `{"web": {"allow": ["https://go.dev/doc"]}}`, "web.allow[0]", "bare host name"},
		{"file rule", `{"permissions": {"allow": ["Edit(src/**)"]}}`, "permissions.allow[0]", "sensitiveFiles"},
		{"webfetch rule", `{"permissions": {"allow": ["WebFetch(domain:go.dev)"]}}`, "permissions.allow[0]", `"web"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("proj/.tether/settings.json", []byte(c.src))
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want a settings error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "proj/.tether/settings.json") {
				t.Errorf("%q: want one line starting with the file", msg)
			}
			if se.Field != c.field || !strings.Contains(se.Msg, c.text) {
				t.Errorf("%q: want field %q and text %q", msg, c.field, c.text)
			}
			if c.src != "" && se.Line == 0 {
				t.Errorf("%q: no line", msg)
			}
		})
	}
}
