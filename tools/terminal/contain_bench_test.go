//go:build linux

package terminal

import (
	"context"
	"os"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// BenchmarkRunTrue measures one whole command (`true`) with each kind of
// containment; the difference from "none" is what containment adds per
// command (the budget is 5 ms). Every mode has the command's
// cgroup where this process may make one. helper: the kill-domain
// helper; helper+sandbox: the helper and, below it, the confining one;
// confined: Config.Domain with a sandbox, which in a cgroup starts the
// command confined with no helper.
func BenchmarkRunTrue(b *testing.B) {
	for _, mode := range []string{"none", "helper", "helper+sandbox", "confined"} {
		b.Run(mode, func(b *testing.B) {
			root := b.TempDir()
			cfg := Config{Root: root}
			sb := &safety.Sandbox{Writable: []string{root, os.TempDir()}}
			switch mode {
			case "helper":
				cfg.Contain = (&safety.KillDomain{}).Wrap
			case "helper+sandbox":
				cfg.Contain = (&safety.KillDomain{Sandbox: sb}).Wrap
			case "confined":
				cfg.Domain = &safety.KillDomain{Sandbox: sb}
			}
			if mode != "none" && mode != "helper" && sb.Available() != nil {
				b.Skip("no sandbox here")
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
