package settings

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps: hosts import settings to read the files; it must not link a
// database driver, the MCP SDK or the schema generator (a test-only
// dependency).
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, bad := range []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/modelcontextprotocol/go-sdk", "github.com/invopop/jsonschema"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("settings links %s", bad)
		}
	}
}
