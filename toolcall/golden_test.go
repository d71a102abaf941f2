package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the want.json sections of testdata/golden/*.txtar")

// A golden case is three sections of a txtar file:
//
//	-- NAME/input --      the model output (one trailing newline is dropped;
//	                      add an empty line to keep one)
//	-- NAME/options --    optional: "tools: a,b", "thinking", "formats: tag|json"
//	-- NAME/want.json --  the expected calls, text, thinking, failures, warnings
//
// Every case is also streamed in several chunkings and must give the same
// Result, and must satisfy the invariants of checkResult.

type goldenCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	ID        string `json:"id,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Format    string `json:"format"`
	Repaired  bool   `json:"repaired,omitempty"`
}

type goldenFailure struct {
	Format string `json:"format"`
	Err    string `json:"err"`
	Reason string `json:"reason"`
	Raw    string `json:"raw"`
}

type goldenWant struct {
	Calls    []goldenCall    `json:"calls"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking,omitempty"`
	Failures []goldenFailure `json:"failures,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
}

var sentinels = []error{ErrInvalidJSON, ErrTruncated, ErrNotACall, ErrBadArguments, ErrUnknownTool, ErrMultipleEnvelopes, ErrMention}

func sentinelName(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "?"
}

func toGolden(r Result) goldenWant {
	g := goldenWant{Calls: []goldenCall{}, Text: r.Text, Thinking: r.Thinking}
	for _, c := range r.Calls {
		var buf bytes.Buffer
		if err := json.Compact(&buf, c.Arguments); err != nil {
			buf.Reset()
			buf.WriteString(`"INVALID"`)
		}
		kind := c.Kind
		if kind == "tool" {
			kind = ""
		}
		g.Calls = append(g.Calls, goldenCall{Name: c.Name, Arguments: buf.String(), ID: c.ID, Kind: kind, Format: c.Format.String(), Repaired: c.Repaired})
	}
	for _, f := range r.Failures {
		g.Failures = append(g.Failures, goldenFailure{Format: f.Format.String(), Err: sentinelName(f.Err), Reason: f.Reason, Raw: f.Raw})
	}
	for _, w := range r.Warnings {
		g.Warnings = append(g.Warnings, w.Reason)
	}
	return g
}

type goldenCase struct {
	file, name string
	input      string
	opts       []Option
	optText    string
	want       []byte
}

func parseOptions(t testing.TB, s string) []Option {
	var opts []Option
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "":
		case "tools":
			opts = append(opts, WithTools(strings.Split(v, ",")...))
		case "thinking":
			opts = append(opts, StartInThinking())
		case "formats":
			var f Format
			for _, name := range strings.Split(v, "|") {
				for _, n := range formatNames {
					if n.name == name {
						f |= n.f
					}
				}
			}
			opts = append(opts, WithFormats(f))
		default:
			t.Fatalf("unknown option %q", line)
		}
	}
	return opts
}

func loadGolden(t testing.TB) []goldenCase {
	files, err := filepath.Glob("testdata/golden/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var cases []goldenCase
	for _, file := range files {
		a, err := parseTxtarFile(file)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]int{}
		for _, f := range a.Files {
			name, part, ok := strings.Cut(f.Name, "/")
			if !ok {
				t.Fatalf("%s: section %q is not NAME/part", file, f.Name)
			}
			idx, ok := byName[name]
			if !ok {
				cases = append(cases, goldenCase{file: file, name: name})
				idx = len(cases) - 1
				byName[name] = idx
			}
			c := &cases[idx]
			switch part {
			case "input":
				c.input = strings.TrimSuffix(string(f.Data), "\n")
			case "options":
				c.optText = string(f.Data)
				c.opts = parseOptions(t, c.optText)
			case "want.json":
				c.want = f.Data
			default:
				t.Fatalf("%s: unknown section %q", file, f.Name)
			}
		}
	}
	return cases
}

func goldenInputs(t testing.TB) []string {
	var in []string
	for _, c := range loadGolden(t) {
		in = append(in, c.input)
	}
	return in
}

func TestGolden(t *testing.T) {
	cases := loadGolden(t)
	if len(cases) < 150 {
		t.Errorf("golden suite has %d cases, want at least 150", len(cases))
	}
	updated := map[string]map[string][]byte{}
	for _, c := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(c.file), ".txtar")+"/"+c.name, func(t *testing.T) {
			r := ParseWith(c.input, c.opts...)
			if err := checkResult(c.input, r); err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(toGolden(r), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			if *update {
				if updated[c.file] == nil {
					updated[c.file] = map[string][]byte{}
				}
				updated[c.file][c.name] = got
			} else {
				var w, g any
				if err := json.Unmarshal(c.want, &w); err != nil {
					t.Fatalf("want.json: %v", err)
				}
				json.Unmarshal(got, &g)
				if !reflect.DeepEqual(w, g) {
					t.Errorf("input:\n%s\ngot:\n%s\nwant:\n%s", c.input, got, c.want)
				}
			}
			for _, cuts := range [][]byte{{0}, {2}, {15}, {4, 0, 9, 1}} {
				if err := streamChunks(split(c.input, cuts), c.opts...); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if *update {
		for file, wants := range updated {
			a, err := parseTxtarFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var files []txtarFile
			var kept []txtarFile
			for _, f := range a.Files {
				if !strings.HasSuffix(f.Name, "/want.json") {
					kept = append(kept, f)
				}
			}
			for k, f := range kept {
				files = append(files, f)
				name, _, _ := strings.Cut(f.Name, "/")
				if k+1 == len(kept) || !strings.HasPrefix(kept[k+1].Name, name+"/") {
					files = append(files, txtarFile{Name: name + "/want.json", Data: wants[name]})
				}
			}
			a.Files = files
			if err := os.WriteFile(file, formatTxtar(a), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
