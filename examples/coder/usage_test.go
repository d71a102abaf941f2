package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -h teaches: usage with examples, every slash command, the keys, and the
// files kept under the user's cache directory, named in full.
func TestHelpTeaches(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"-h"}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("-h: exit %d, want 0", code)
	}
	help := stderr.String()
	want := []string{"usage: coder -model MODEL", "Examples:", "Keys:", "Esc or Ctrl-C cancels", "-db :memory:", "-approval-timeout"}
	for _, c := range commands {
		want = append(want, "  "+c.name+" ")
	}
	if cache, err := os.UserCacheDir(); err == nil {
		want = append(want, filepath.Join(cache, "tether", "coder.db"), filepath.Join(cache, "tether", "coder.log"))
	}
	for _, w := range want {
		if !strings.Contains(help, w) {
			t.Errorf("-h does not mention %q", w)
		}
	}
}
