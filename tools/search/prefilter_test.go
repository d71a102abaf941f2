package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequired(t *testing.T) {
	tests := []struct {
		re   string
		lits []string
		fold bool
		ok   bool
	}{
		{"foo", []string{"foo"}, false, true},
		{"(?i)foo", []string{"FOO"}, true, true}, // syntax keeps a folded literal's first case
		{"a.*bcd", []string{"bcd"}, false, true},
		{"foo|bar", []string{"foo", "bar"}, false, true},
		{"foo|b*", nil, false, false},
		{"(x)+yz", []string{"yz"}, false, true},
		{"[0-9]+", nil, false, false},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.re, syntax.Perl)
		require.NoError(t, err)
		n, ok := required(re.Simplify())
		assert.Equal(t, tt.ok, ok, tt.re)
		if tt.ok {
			assert.Equal(t, tt.fold, n.fold, tt.re)
			assert.Len(t, n.lits, len(tt.lits), tt.re)
		}
	}
}

func TestFoldedPrefilterUnicode(t *testing.T) {
	tool, _ := searchTool(t, map[string]string{
		"a.txt": "\u212aelvin scale\nKELVIN\nnothing\n", // KELVIN SIGN folds to k
		"b.txt": "Straße\nSTRASSE\n",
	})
	res, err := call(t, tool, `{"query":"(?i)kelvin","isRegex":true,"contextLines":0}`)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Meta.Matches, res.Text)
	res, err = call(t, tool, `{"query":"(?i)straße","isRegex":true,"contextLines":0}`)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Meta.Matches, res.Text) // non-ASCII literal: no prefilter, regexp decides
}

func TestGuards(t *testing.T) {
	re, err := syntax.Parse(`[0-9]{4}-[0-9]{2}`, syntax.Perl)
	require.NoError(t, err)
	n, ok := required(re.Simplify())
	require.True(t, ok)
	assert.Equal(t, []string{"-"}, n.lits)
	require.NotNil(t, n.before)
	require.NotNil(t, n.after)
	assert.True(t, n.before['7'])
	assert.False(t, n.before['a'])
	assert.True(t, n.after['0'])

	// A neighbour that may be empty guards nothing.
	re, err = syntax.Parse(`a*-\d`, syntax.Perl)
	require.NoError(t, err)
	n, _ = required(re.Simplify())
	assert.Nil(t, n.before)
	assert.NotNil(t, n.after)

	// Folded literals and non-ASCII classes: any case, any lead byte.
	re, err = syntax.Parse(`(?i)[x-z]+y-[é-ü]`, syntax.Perl)
	require.NoError(t, err)
	n, _ = required(re.Simplify())
	require.NotNil(t, n.before)
	assert.True(t, n.before['X'] && n.before['x'] && !n.before['a'])
	assert.True(t, n.after[0xC3])
}

// The prefilter (literals, guards, folded scanning) never changes which
// lines match: the finder agrees with the regexp run on each line.
func FuzzRegexFinder(f *testing.F) {
	patterns := []string{
		`[0-9]{4}-[0-9]{2}-[0-9]{2}`, `(?i)unmarshaljson`, `(?i)kelvin`, `a-b|c-d`, `(?i)x\d`,
		`func \(\w+ \*\w+\) Close\(`, `^package main$`, `(?i)zz[a-c]+q`, `\bfoo-`, `é-[à-ü]+`,
	}
	f.Add(uint8(0), []byte("2024-01-02\n1-2\nx-2024-01-0\n"))
	f.Add(uint8(1), []byte("func (x *T) UnmarshalJSON(\nunmarshaljsoN\nUNMARSHAL\n"))
	f.Add(uint8(2), []byte("\u212aelvin\nKELVIN\n"))
	f.Add(uint8(9), []byte("café-ü\né-a\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		pat := patterns[int(which)%len(patterns)]
		newFinder, err := compile(Query{Pattern: pat, Regex: true})
		if err != nil {
			t.Fatal(err)
		}
		want := regexp.MustCompile(unicodePerlClasses(pat))
		fm := searchBuf(data, newFinderReset(newFinder, data), Query{MaxPerFile: 1 << 30, MaxLineLen: 1 << 20})
		got := map[int]bool{}
		for _, l := range fm.Lines {
			got[l.N] = true
		}
		lines := bytes.Split(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] == '\n' {
			lines = lines[:len(lines)-1]
		}
		if len(data) == 0 {
			lines = nil
		}
		for i, line := range lines {
			if want.Match(line) != got[i+1] {
				t.Fatalf("%q on line %d %q: finder says %v", pat, i+1, line, got[i+1])
			}
		}
	})
}

func newFinderReset(newFinder func() finder, b []byte) finder {
	fd := newFinder()
	fd.reset(b)
	return fd
}

// On lines longer than longLine, bounded regexps run on windows around
// each candidate; the lines found are those the regexp finds.
func TestLongLineWindows(t *testing.T) {
	pad := strings.Repeat("2024-01-0 x-y needle ", longLine/10)
	lines := []string{
		pad + "2024-01-02x" + pad,    // a match past many near-misses
		pad + "needle7" + pad,        // guarded literal
		pad,                          // near-misses only
		"short 1999-12-31x",          // a short line, searched whole
		pad + "NEEDLEX" + pad,        // folded
		pad + "é-ü" + pad,            // non-ASCII class
		pad + "abc" + pad + "needle", // assertion: whole line
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	for _, pat := range []string{`[0-9]{4}-[0-9]{2}-?[0-9]{1,2}x`, `needle\d`, `(?i)needlex`, `é-[à-ü]`, `needle$`, `\bneedle7`} {
		newFinder, err := compile(Query{Pattern: pat, Regex: true})
		require.NoError(t, err)
		fd := newFinder()
		fd.reset(data)
		fm := searchBuf(data, fd, Query{MaxPerFile: 100, MaxLineLen: 10})
		var got []int
		for _, l := range fm.Lines {
			got = append(got, l.N)
		}
		var want []int
		rx := regexp.MustCompile(unicodePerlClasses(pat))
		for i, l := range lines {
			if rx.MatchString(l) {
				want = append(want, i+1)
			}
		}
		assert.Equal(t, want, got, pat)
	}
	assert.Positive(t, maxWidth(mustSimplify(t, `[0-9]{4}-[0-9]{2}`)))
	assert.Negative(t, maxWidth(mustSimplify(t, `\bx`)))
	assert.Negative(t, maxWidth(mustSimplify(t, `a+`)))
}

func mustSimplify(t *testing.T, pat string) *syntax.Regexp {
	re, err := syntax.Parse(pat, syntax.Perl)
	require.NoError(t, err)
	return re.Simplify()
}
