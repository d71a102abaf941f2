package lsptools

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/lsp"
)

var sample = []string{
	"// handleRequest handles a request.", // 1: comment
	"func handleRequest() {",              // 2: declaration
	"\tx := HandleRequest()",              // 3: other case
	"\thandleRequestFoo()",                // 4: substring
	"\t😀 := handleRequest",                // 5: after a wide rune
}

// TestResolveSymbol covers the seed's symbolResolver order with a line to
// be near (the declaration lookup without a line needs a server and is
// covered by the gopls tests).
func TestResolveSymbol(t *testing.T) {
	k := &kit{}
	d := &doc{rel: "x.go", lines: sample}
	tests := []struct {
		name    string
		line    int
		wantPos lsp.Position
		wantCol int
	}{
		{"handleRequest", 1, lsp.Position{Line: 1, Character: 5}, 6},     // exact word in code beats the comment on line 1
		{"handleRequest", 5, lsp.Position{Line: 4, Character: 7}, 7},     // nearest exact word; UTF-16 column counts 😀 as 2
		{"handleRequest", 3, lsp.Position{Line: 1, Character: 5}, 6},     // lines 2 and 5 are both 1 away from... 2 is nearer
		{"HANDLEREQUEST", 3, lsp.Position{Line: 2, Character: 6}, 7},     // case-insensitive, nearest
		{"Foo", 4, lsp.Position{Line: 3, Character: 14}, 15},             // substring
		{"pkg.handleRequest", 2, lsp.Position{Line: 1, Character: 5}, 6}, // qualified: last part
	}
	for _, tc := range tests {
		got, err := k.resolveSymbol(context.Background(), d, tc.name, tc.line)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.wantPos, got.pos, "%s near %d", tc.name, tc.line)
		assert.Equal(t, tc.wantCol, got.col, "%s near %d", tc.name, tc.line)
	}
	_, err := k.resolveSymbol(context.Background(), d, "absent", 1)
	assert.ErrorContains(t, err, `symbol "absent" not found in x.go`)
}

func TestResolvePosition(t *testing.T) {
	k := &kit{}
	d := &doc{rel: "x.go", lines: sample}
	got, err := k.resolve(context.Background(), d, positionArgs{Line: 5, Character: 5})
	require.NoError(t, err)
	assert.Equal(t, lsp.Position{Line: 4, Character: 5}, got.pos, "character 5 is the '=': tab, 😀 (two UTF-16 units), space, colon before it")
	got, err = k.resolve(context.Background(), d, positionArgs{Line: 3})
	require.NoError(t, err)
	assert.Equal(t, lsp.Position{Line: 2, Character: 1}, got.pos, "a line alone: its first word")
	assert.Equal(t, "x", got.name)
	_, err = k.resolve(context.Background(), d, positionArgs{Line: 6})
	assert.ErrorContains(t, err, "past the end")
	_, err = k.resolve(context.Background(), d, positionArgs{})
	assert.ErrorContains(t, err, "give symbolName")
}

// FuzzFindOccurrences: any text and name, every occurrence reported is a
// case-insensitive match at a rune boundary, and nothing panics.
func FuzzFindOccurrences(f *testing.F) {
	f.Add(strings.Join(sample, "\n"), "handleRequest")
	f.Add("İstanbul istanbul ISTANBUL", "istanbul")
	f.Add("ǅ ǆ Ǆ", "ǆ")
	f.Add("\xff\xfe abc", "ABC")
	f.Fuzz(func(t *testing.T, text, name string) {
		lines := lsp.SplitLines(text)
		for _, o := range findOccurrences(lines, name) {
			got := lines[o.line][o.byteCol : o.byteCol+o.length]
			if !strings.EqualFold(got, name) {
				t.Fatalf("occurrence %q does not match %q", got, name)
			}
		}
	})
}

func BenchmarkFindOccurrences(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		sb.WriteString("\tresult := computeSomething(input, ")
		if i%100 == 0 {
			sb.WriteString("handleRequest")
		}
		sb.WriteString(")\n")
	}
	lines := lsp.SplitLines(sb.String())
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	for b.Loop() {
		findOccurrences(lines, "handleRequest")
	}
}

func TestProgressGroup(t *testing.T) {
	assert.Equal(t, GroupAnalyzing, ProgressGroup(DefinitionName))
	assert.Equal(t, GroupSearching, ProgressGroup(FindSymbolName))
	assert.Equal(t, GroupInspecting, ProgressGroup(DocumentSymbolsName))
	assert.Equal(t, "", ProgressGroup("read_file"))
	for _, n := range []string{DocumentSymbolsName, DefinitionName, ReferencesName, ImplementationsName, FindSymbolName, HoverName, CallHierarchyName, TypeHierarchyName} {
		assert.Contains(t, NavigationGuidance, n)
	}
}
