package safety

import (
	"bytes"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
)

var updateSensitivity = flag.Bool("update-sensitivity", false, "rewrite testdata/sensitivity/*.txt from the current results")

// TestSensitivityGolden judges each path in testdata/sensitivity/floor.txt
// with the built-in floor alone and compares the verdict written after
// " => ".
func TestSensitivityGolden(t *testing.T) {
	const file = "testdata/sensitivity/floor.txt"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s *Sensitivity
	var out bytes.Buffer
	n := 0
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		input, want, ok := cutLast(line, " => ")
		if !ok {
			t.Fatalf("line %d: missing \" => \"", i+1)
		}
		p := strings.TrimSpace(input)
		if strings.HasPrefix(p, `"`) {
			if p, err = strconv.Unquote(p); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
		}
		m := s.Match(p)
		got := "-"
		switch {
		case m.Secret:
			got = "secret"
		case m.Sensitive:
			got = "sensitive"
		}
		if m.Pattern != "" {
			got += " " + strconv.Quote(m.Pattern)
		}
		n++
		if !*updateSensitivity && strings.TrimSpace(want) != got {
			t.Errorf("line %d: %q: got %s, want %s", i+1, p, got, strings.TrimSpace(want))
		}
		out.WriteString(strings.TrimRight(input, " ") + " => " + got + "\n")
	}
	if *updateSensitivity {
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d sensitivity cases", n)
}
