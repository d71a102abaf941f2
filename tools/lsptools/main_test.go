package lsptools

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: every language
// server is shut down and its reader stopped.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
