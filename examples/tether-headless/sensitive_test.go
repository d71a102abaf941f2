package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tetherdev/tether/examples/internal/hostcfg/hostcfgtest"
)

// TestAutoApproveSensitiveEdits: a write to a sensitive file needs a
// person (here nobody answers, so it is refused) unless the user's own
// settings turn autoApproveSensitiveEdits on; the same field in a
// project file the user has not trusted is left out, and the log says
// so.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	script := hostcfgtest.Script(t)
	for _, tc := range hostcfgtest.AutoApproveCases {
		t.Run(tc.Name, func(t *testing.T) {
			ws := project(t)
			tc.Setup(t, ws)
			var out, stderr bytes.Buffer
			in := strings.NewReader(`{"type":"prompt","text":"Scale the app"}` + "\n")
			if code := run(t.Context(), []string{"-workspace", ws, "-model", "script:" + script}, in, &out, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if written := hostcfgtest.Written(ws); written == tc.Asked {
				t.Errorf("written %v; want it refused exactly when asked (%v)\n%s", written, tc.Asked, out.String())
			}
			if tc.Name == "untrusted project" && !strings.Contains(stderr.String(), "autoApproveSensitiveEdits") {
				t.Errorf("the log does not say the field was left out:\n%s", stderr.String())
			}
		})
	}
}
