package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBlindBatch runs the settings files in testdata/blind: files people
// wrote for Claude Code, Gemini CLI, crush and MCP hosts, taken from
// public issues and guides (each file's first line cites it), with the
// expected outcome written before the loader was run on them:
//
//	// want ok                     the file loads
//	// want allow: a, b            …and these are its allow rules in Tether's syntax (also ask:, deny:)
//	// want mcp: NAME              …and this MCP server is handed on
//	// want lsp: NAME              …and this language server is configured
//	// want error: FIELD | TEXT    one error, at FIELD, whose message contains TEXT
func TestBlindBatch(t *testing.T) {
	files, err := filepath.Glob("testdata/blind/*.json")
	if err != nil || len(files) < 20 {
		t.Fatalf("want at least 20 blind cases, found %d (%v)", len(files), err)
	}
	passed := 0
	for _, f := range files {
		ok := t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, perr := Parse(f, data)
			wants := 0
			for line := range strings.Lines(string(data)) {
				w, ok := strings.CutPrefix(strings.TrimSpace(line), "// want")
				if !ok {
					continue
				}
				wants++
				checkWant(t, strings.TrimSpace(w), s, perr, f)
			}
			if wants == 0 {
				t.Fatal("no // want line")
			}
		})
		if ok {
			passed++
		}
	}
	t.Logf("blind batch: %d/%d as expected", passed, len(files))
}

func checkWant(t *testing.T, w string, s Settings, err error, file string) {
	t.Helper()
	key, val, _ := strings.Cut(w, ":")
	val = strings.TrimSpace(val)
	if key != "error" && err != nil {
		t.Fatalf("want %s, got error: %v", w, err)
	}
	list := func(v string) []string {
		var out []string
		for p := range strings.SplitSeq(v, ",") {
			out = append(out, strings.TrimSpace(p))
		}
		return out
	}
	rules := s.CommandRules()
	switch key {
	case "ok":
	case "allow", "ask", "deny":
		got := map[string][]string{"allow": rules.Allow, "ask": rules.Ask, "deny": rules.Deny}[key]
		if !slices.Equal(got, list(val)) {
			t.Errorf("%s rules = %q, want %q", key, got, list(val))
		}
	case "mcp":
		var doc struct{ MCPServers map[string]json.RawMessage }
		if err := json.Unmarshal(s.MCPConfig(), &doc); err != nil || doc.MCPServers[val] == nil {
			t.Errorf("MCPConfig() = %s, want server %q (%v)", s.MCPConfig(), val, err)
		}
	case "lsp":
		if _, ok := s.LSPServers[val]; !ok {
			t.Errorf("lspServers = %v, want %q", s.LSPServers, val)
		}
	case "error":
		field, text, _ := strings.Cut(val, "|")
		field, text = strings.TrimSpace(field), strings.TrimSpace(text)
		var se *Error
		if !errors.As(err, &se) {
			t.Fatalf("want an error at %s, got %v", field, err)
		}
		msg := err.Error()
		if se.Field != field || !strings.Contains(strings.ToLower(se.Msg), strings.ToLower(text)) {
			t.Errorf("error %q: want field %s and text %q", msg, field, text)
		}
		if !strings.HasPrefix(msg, file+":") || strings.Contains(msg, "\n") || se.Line == 0 {
			t.Errorf("error %q: want one line starting with the file and its line", msg)
		}
	default:
		t.Fatalf("unknown want %q", w)
	}
}
