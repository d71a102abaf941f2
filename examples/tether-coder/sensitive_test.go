package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/examples/internal/hostcfg/hostcfgtest"
)

// TestAutoApproveSensitiveEdits: a write to a sensitive file shows the
// approval card unless the user's own settings turn
// autoApproveSensitiveEdits on; the same field in a project file the
// user has not trusted is left out (and the coder says so), since the
// model could have written it. Cards are refused.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	script := hostcfgtest.Script(t)
	for _, tc := range hostcfgtest.AutoApproveCases {
		t.Run(tc.Name, func(t *testing.T) {
			ws := t.TempDir()
			tc.Setup(t, ws)
			r, w, _ := os.Pipe()
			defer w.Close()
			var out syncBuffer
			done := make(chan int)
			go func() {
				done <- run([]string{"-workspace", ws, "-model", "script:" + script, "-db", ":memory:", "-log", filepath.Join(t.TempDir(), "log")}, r, &out, &out)
			}()
			waitOut(t, &out, "agent ›")
			fmt.Fprintln(w, "scale the app")
			if tc.Asked {
				waitOut(t, &out, "n[: why] ›")
				fmt.Fprintln(w, "n")
			}
			waitOut(t, &out, "Scaled.")
			fmt.Fprintln(w, "/quit")
			if code := <-done; code != 0 {
				t.Fatalf("exit %d:\n%s", code, out.String())
			}
			if asked := strings.Contains(out.String(), "n[: why] ›"); asked != tc.Asked {
				t.Errorf("asked %v, want %v:\n%s", asked, tc.Asked, out.String())
			}
			if written := hostcfgtest.Written(ws); written == tc.Asked {
				t.Errorf("written %v; want it refused exactly when asked (%v)", written, tc.Asked)
			}
			if tc.Name == "untrusted project" && !strings.Contains(out.String(), "autoApproveSensitiveEdits") {
				t.Errorf("the coder does not say it left the field out:\n%s", out.String())
			}
		})
	}
}
