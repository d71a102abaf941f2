//go:build linux

package terminal

import (
	"context"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// BenchmarkRunTrue measures one whole command (`true`) with each kind of
// containment; the difference from "none" is what a helper adds per
// command (the budget is 5 ms).
func BenchmarkRunTrue(b *testing.B) {
	for _, mode := range []string{"none", "domain"} {
		b.Run(mode, func(b *testing.B) {
			cfg := Config{Root: b.TempDir()}
			if mode == "domain" {
				cfg.Contain = (&safety.KillDomain{}).Wrap
			}
			s, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if r, err := s.Run(context.Background(), Command{Command: "true"}); err != nil || r.ExitCode != 0 {
					b.Fatal(err, r)
				}
			}
		})
	}
}
