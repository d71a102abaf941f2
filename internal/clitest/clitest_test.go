package clitest

import (
	"fmt"
	"io"
	"testing"
)

// recorder is a testing.TB that counts failures instead of failing.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }

func TestHelp(t *testing.T) {
	for _, tt := range []struct {
		name           string
		code           int
		stdout, stderr string
		want           []string
		errors         int
	}{
		{"all present", 0, "", "usage: x\nExamples:", []string{"usage:", "Examples:"}, 0},
		{"on either stream", 0, "usage: x", "Examples:", []string{"usage:", "Examples:"}, 0},
		{"one missing", 0, "", "usage: x", []string{"usage:", "Examples:"}, 1},
		{"non-zero exit", 2, "", "usage: x", []string{"usage:"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			o, e := Help(r, func(stdout, stderr io.Writer) int {
				fmt.Fprint(stdout, tt.stdout)
				fmt.Fprint(stderr, tt.stderr)
				return tt.code
			}, tt.want...)
			if r.errors != tt.errors || o != tt.stdout || e != tt.stderr {
				t.Errorf("%d failures, output %q %q; want %d", r.errors, o, e, tt.errors)
			}
		})
	}
}
