package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
)

func TestHelp(t *testing.T) {
	clitest.Help(t, func(o, e io.Writer) int {
		return run(context.Background(), []string{"-h"}, strings.NewReader(""), o, e)
	},
		"-model", "script:FILE", "agent_servers", "Exit status", "-db", "-sandbox")
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-model", "script:x.jsonl", "-sandbox", "maybe"},
		{"-model", "script:x.jsonl", "-approval-timeout", "0s"},
		{"-model", "script:x.jsonl", "extra"},
		{"-model", "script:x.jsonl", "-tool-calling", "smoke"},
		{"-model", "script:x.jsonl", "-max-iterations", "-1"},
	} {
		var o, e bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &o, &e); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, e.String())
		}
		if o.Len() != 0 {
			t.Errorf("%q: wrote %q on standard output, which carries the protocol only", args, o.String())
		}
	}
}

// A model that cannot be opened is exit 1, before any protocol.
func TestUnopenableModel(t *testing.T) {
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"-model", "script:/no/such/script.jsonl", "-db", "memory"}, strings.NewReader(""), &o, &e); code != 1 {
		t.Errorf("exit %d, want 1 (%s)", code, e.String())
	}
}
