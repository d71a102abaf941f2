package search

import (
	"bytes"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func FuzzASCIILower(f *testing.F) {
	f.Add([]byte("Hello, WORLD! ÀÉ @[`{ AZaz\xff\x80"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := asciiLower(nil, b)
		want := make([]byte, len(b))
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			want[i] = c
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("asciiLower(%q) = %q, want %q", b, got, want)
		}
	})
}

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
		lits, fold, ok := required(re.Simplify())
		assert.Equal(t, tt.ok, ok, tt.re)
		if tt.ok {
			assert.Equal(t, tt.fold, fold, tt.re)
			assert.Len(t, lits, len(tt.lits), tt.re)
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
