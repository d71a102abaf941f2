package safety

import (
	"context"
	"log/slog"
	"testing"
)

// A Sandbox without a Logger is silent; one with a Logger uses it.
func TestSandboxNilLoggerIsSilent(t *testing.T) {
	ctx := context.Background()
	if (&Sandbox{}).logger().Enabled(ctx, slog.LevelError) {
		t.Error("a Sandbox without a Logger would log (to slog.Default())")
	}
	l := slog.New(slog.NewTextHandler(nil, nil))
	if (&Sandbox{Logger: l}).logger() != l {
		t.Error("a Sandbox ignores its Logger")
	}
}
