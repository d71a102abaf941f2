package agent

import (
	"testing"

	"go.uber.org/goleak"
)

// No run may leave a goroutine behind: not the iterator adapter, not a
// concurrent batch, not a cancelled command.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
