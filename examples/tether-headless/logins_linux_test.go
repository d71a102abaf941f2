//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// TestLoginsStayHidden runs, through the built binary, a script in the
// workspace that prints the user's SSH key: the analyser sees only
// `sh leak.sh`, as it would a build that #includes the key. With the
// sandbox the kernel refuses the read; without it the key's lines are
// redacted from what the model reads. Either way the key never reaches
// the model.
func TestLoginsStayHidden(t *testing.T) {
	const body = "QyNTUxOQAAACDxEXAMPLEkeyMATERIALonlyFORtestsXYZ0123456789abcdefAB"
	for _, sandbox := range []string{"off", "auto"} {
		t.Run("sandbox "+sandbox, func(t *testing.T) {
			home, ws := t.TempDir(), project(t)
			if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
				t.Fatal(err)
			}
			key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----\n"
			if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(key), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "leak.sh"), []byte("cat \"$HOME/.ssh/id_ed25519\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary, "-workspace", ws, "-model", "script:"+writeScript(t, "sh leak.sh"), "-sandbox", sandbox, "-allow", "sh")
			// The binary makes TMPDIR writable; a home inside it would be too.
			cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+t.TempDir())
			cmd.Stdin = strings.NewReader(`{"type":"prompt","text":"go"}` + "\n")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("headless: %v\n%s", err, stderr.String())
			}
			if bytes.Contains(out, []byte(body)) {
				t.Fatalf("the key reached the model:\n%s", out)
			}
			want := "[redacted"
			if sandbox == "auto" && (&safety.Sandbox{}).Available() == nil {
				want = "Permission denied"
			}
			if !bytes.Contains(out, []byte(want)) {
				t.Errorf("the tool result does not say %q:\n%s\nstderr:\n%s", want, out, stderr.String())
			}
		})
	}
}
