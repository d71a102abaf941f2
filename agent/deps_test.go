package agent_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoDriverDependencies keeps database drivers and telemetry out of the
// core: a host that imports agent links no SQLite, no PostgreSQL driver
// and no OpenTelemetry unless it imports their packages itself.
func TestNoDriverDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/tetherdev/tether/agent", "github.com/tetherdev/tether/agent/session", "github.com/tetherdev/tether/checkpoint").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"modernc.org/sqlite", "github.com/jackc/pgx", "go.opentelemetry.io"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the core imports %s (through %s); move the code that needs it into its own package", banned, dep)
			}
		}
	}
}
