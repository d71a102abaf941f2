package approval

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: a Wait
// that never returns, or a timer goroutine that outlives its request.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
