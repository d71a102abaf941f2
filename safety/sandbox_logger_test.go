package safety

import (
	"bytes"
	"context"
	"log/slog"
	"os/exec"
	"strings"
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

// A degraded sandbox warns once, not on every command it wraps: the
// second and later commands log the same at Debug.
func TestSandboxWarnsOncePerReason(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sb := &Sandbox{Writable: []string{t.TempDir()}, BestEffort: true, Logger: l,
		probe: func(bool) error { return errDomain("test kernel without Landlock") }}
	for range 3 {
		cmd := exec.Command("/bin/true")
		if err := sb.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings for three commands, want 1:\n%s", n, buf.String())
	}
	if n := strings.Count(buf.String(), "level=DEBUG"); n != 2 {
		t.Errorf("%d debug repeats, want 2:\n%s", n, buf.String())
	}
}
