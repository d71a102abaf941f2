package acp_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksOnlyTheCore keeps acp beside mcp, not above it: a host that
// serves ACP links no database driver, no MCP SDK and no telemetry unless
// it imports them itself (examples/tether-acp does, for its store and the
// editor's MCP servers), and the agent does not link acp.
func TestLinksOnlyTheCore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/tetherdev/tether/acp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"modernc.org/sqlite", "github.com/jackc/pgx", "go.opentelemetry.io", "github.com/modelcontextprotocol/go-sdk", "github.com/tetherdev/tether/mcp"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("acp imports %s (through %s)", banned, dep)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "github.com/tetherdev/tether/agent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/tetherdev/tether/acp" || strings.HasPrefix(dep, "github.com/coder/acp-go-sdk") {
			t.Errorf("the agent links %s", dep)
		}
	}
}
