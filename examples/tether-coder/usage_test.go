package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
)

// -h teaches: usage with examples, every slash command, the keys, and the
// files kept under the user's cache directory, named in full.
func TestHelpTeaches(t *testing.T) {
	want := []string{"usage: tether-coder -model MODEL", "Examples:", "Keys:", "Esc or Ctrl-C cancels", "-db :memory:", "-approval-timeout"}
	for _, c := range commands {
		want = append(want, "  "+c.name+" ")
	}
	if cache, err := os.UserCacheDir(); err == nil {
		want = append(want, filepath.Join(cache, "tether", "coder.db"), filepath.Join(cache, "tether", "coder.log"))
	}
	clitest.Help(t, func(stdout, stderr io.Writer) int { return run([]string{"-h"}, strings.NewReader(""), stdout, stderr) }, want...)
}
