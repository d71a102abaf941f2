package edit

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkEditMiss measures the closest-match search an edit_file miss
// runs, on a 20,000-line file with a one-word typo in old_text.
func BenchmarkEditMiss(b *testing.B) {
	var src strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&src, "\tvalue%d := compute(%d, \"some text on the line\") // comment %d\n", i, i, i)
	}
	content := src.String()
	old := "\tvalue12345 := compute(12345, \"some text on a line\")"
	for b.Loop() {
		if len(Closest(content, old, 3)) == 0 {
			b.Fatal("no candidate")
		}
	}
}
