package edit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// occurrences returns the byte offsets of every non-overlapping
// occurrence of sub in s; the empty string occurs nowhere.
func occurrences(s, sub string) []int {
	if sub == "" {
		return nil
	}
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + len(sub)
	}
}

// LineOf is the 1-based line of byte offset off in s.
func LineOf(s string, off int) int { return strings.Count(s[:off], "\n") + 1 }

// readFilePrefix matches the line-number prefix read_file puts on each
// line ("   12\t"), which models copy into the text they want replaced.
var readFilePrefix = lazyregexp.New(`(?m)^ *\d+\t`)

// stripLineNumbers removes read_file prefixes when every line has one.
func stripLineNumbers(s string) (string, bool) {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for _, l := range lines {
		if !readFilePrefix.MatchString(l) {
			return s, false
		}
	}
	return readFilePrefix.ReplaceAllString(s, ""), true
}

// looseFind finds old in content comparing line by line with trailing
// whitespace ignored; it returns the byte ranges of every match. Both
// sides are whole lines: old's first and last lines must match whole
// lines of content.
func looseFind(content, old string) [][2]int {
	oldLines := strings.Split(strings.TrimRight(old, "\r\n"), "\n")
	for i := range oldLines {
		oldLines[i] = strings.TrimRight(oldLines[i], " \t\r")
	}
	lines := SplitLines(content)
	offs := make([]int, len(lines)+1)
	for i, l := range lines {
		offs[i+1] = offs[i] + len(l)
	}
	var out [][2]int
	for i := 0; i+len(oldLines) <= len(lines); i++ {
		ok := true
		for k, ol := range oldLines {
			if strings.TrimRight(lines[i+k], " \t\r\n") != ol {
				ok = false
				break
			}
		}
		if ok {
			end := offs[i+len(oldLines)]
			// Keep the final line terminator unless old had one.
			if !strings.HasSuffix(old, "\n") {
				end -= len(lines[i+len(oldLines)-1]) - len(strings.TrimRight(lines[i+len(oldLines)-1], "\r\n"))
			}
			out = append(out, [2]int{offs[i], end})
			i += len(oldLines) - 1
		}
	}
	return out
}

// Candidate is a window of the file that resembles the text looked for.
type Candidate struct {
	line  int     // 1-based first line
	score float64 // 0..1
	text  string
	note  string
}

// Closest returns up to n windows of content most like old, best first,
// for an error message that shows the model what the file really says.
// Every window gets a cheap score (shared prefix and suffix of each line);
// only the best few are scored again by edit distance, so the work stays
// linear in the file's size.
func Closest(content, old string, n int) []Candidate {
	oldLines := strings.Split(strings.TrimRight(old, "\r\n"), "\n")
	lines := strings.Split(content, "\n")
	if len(oldLines) == 0 || len(lines) == 0 {
		return nil
	}
	w := min(len(oldLines), len(lines))
	oldLines = oldLines[:w]
	for i := range oldLines {
		oldLines[i] = strings.TrimSpace(oldLines[i])
	}
	const rescored = 32
	var cands []Candidate
	for i := 0; i+w <= len(lines); i++ {
		total := 0.0
		for k := range w {
			total += affix(strings.TrimSpace(lines[i+k]), oldLines[k])
		}
		cands = append(cands, Candidate{line: i + 1, score: total / float64(w)})
	}
	byScore := func(a, b Candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.line - b.line
	}
	slices.SortFunc(cands, byScore)
	cands = cands[:min(len(cands), rescored)]
	for j := range cands {
		c := &cands[j]
		total, trimmedEq := 0.0, 0
		for k := range w {
			a := strings.TrimSpace(lines[c.line-1+k])
			switch {
			case a == oldLines[k]:
				total++
				trimmedEq++
			case len(a) > 500 || len(oldLines[k]) > 500:
				total += affix(a, oldLines[k])
			default:
				total += similarity(a, oldLines[k])
			}
		}
		c.score = total / float64(w)
		c.text = strings.Join(lines[c.line-1:c.line-1+w], "\n")
		if trimmedEq == w {
			c.note = "same text, different indentation or whitespace"
		}
	}
	slices.SortFunc(cands, byScore)
	// Keep good windows that do not overlap a better one.
	var out []Candidate
	for _, c := range cands {
		if c.score < 0.5 || slices.ContainsFunc(out, func(o Candidate) bool { return c.line < o.line+w && o.line < c.line+w }) {
			continue
		}
		out = append(out, c)
		if len(out) == n {
			break
		}
	}
	return out
}

// affix is a cheap similarity: how much of the longer string the shared
// prefix and suffix cover.
func affix(a, b string) float64 {
	if a == b {
		return 1
	}
	m := max(len(a), len(b))
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(p+s) / float64(m)
}

// similarity is 1 - normalised edit distance.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	m := max(len(ra), len(rb))
	if m == 0 {
		return 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(rb)])/float64(m)
}

// ShowCandidates renders closest matches with line numbers.
func ShowCandidates(cands []Candidate) string {
	var b strings.Builder
	for _, c := range cands {
		nl := strings.Count(c.text, "\n")
		fmt.Fprintf(&b, "\nLines %d-%d (%.0f%% similar", c.line, c.line+nl, c.score*100)
		if c.note != "" {
			b.WriteString("; " + c.note)
		}
		b.WriteString("):\n")
		for k, l := range strings.Split(c.text, "\n") {
			fmt.Fprintf(&b, "%6d\t%s\n", c.line+k, l)
		}
	}
	return b.String()
}
