package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: a settings file is untrusted input (it comes with a
// repository). Parse never panics; it either loads or fails with one
// line naming the file; what loads, loads again after Override with
// itself, and its rules convert.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/blind/*.json")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"permissions": {"allow": ["Bash(go test:*)"]}, "modes": {"a": {"tools": ["x"]}}}`))
	f.Add([]byte(`{"mcpServers": {"x": {"httpUrl": "https://h"}}, "lspServers": {"gopls": {"command": "gopls"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.json", data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error not one line naming the file: %q", err)
			}
			return
		}
		_ = s.Override(s).CommandRules()
		_ = s.MCPConfig()
		_ = s.LSPSpecs()
	})
}
