package flagparse

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		err       string // "" for none
		wantUsage bool
	}{
		{[]string{"-n", "3"}, "", false},
		{[]string{"-h"}, flag.ErrHelp.Error(), true},
		{[]string{"-n", "three"}, `invalid value "three" for flag -n`, false},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus", false},
	} {
		var out bytes.Buffer
		fs := flag.NewFlagSet("tool", flag.ContinueOnError)
		fs.SetOutput(&out)
		fs.Usage = func() { out.WriteString("USAGE\n") }
		n := fs.Int("n", 0, "a number")
		err := Parse(fs, tt.args)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%v: %v", tt.args, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%v: err %v, want %q", tt.args, err, tt.err)
		case err != nil && !errors.Is(err, flag.ErrHelp) && !strings.Contains(err.Error(), "tool -h lists every flag"):
			t.Errorf("%v: %v does not say where the help is", tt.args, err)
		}
		if got := strings.Contains(out.String(), "USAGE"); got != tt.wantUsage {
			t.Errorf("%v: usage printed = %v, want %v (output %q)", tt.args, got, tt.wantUsage, out.String())
		}
		if tt.err == "" && *n != 3 {
			t.Errorf("%v: n = %d", tt.args, *n)
		}
		if fs.Output() != &out {
			t.Errorf("%v: the flag set's output was not restored", tt.args)
		}
	}
}
