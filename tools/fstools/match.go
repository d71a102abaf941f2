package fstools

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// occurrences returns the byte offsets of every non-overlapping
// occurrence of sub in s.
func occurrences(s, sub string) []int {
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

func lineOf(s string, off int) int { return strings.Count(s[:off], "\n") + 1 }

// readFilePrefix matches the line-number prefix read_file puts on each
// line ("   12\t"), which models copy into the text they want replaced.
var readFilePrefix = regexp.MustCompile(`(?m)^ *\d+\t`)

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
	lines := splitLines(content)
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

// candidate is a window of the file that resembles the text looked for.
type candidate struct {
	line  int     // 1-based first line
	score float64 // 0..1
	text  string
	note  string
}

// closest returns up to n windows of content most like old, best first,
// for an error message that shows the model what the file really says.
func closest(content, old string, n int) []candidate {
	oldLines := strings.Split(strings.TrimRight(old, "\r\n"), "\n")
	lines := strings.Split(content, "\n")
	if len(oldLines) == 0 || len(lines) == 0 {
		return nil
	}
	w := len(oldLines)
	// Bound the work: similarity is quadratic in line length.
	exact := len(lines)*w > 200_000
	var cands []candidate
	for i := 0; i+w <= len(lines) || (i == 0 && len(lines) < w); i++ {
		end := min(i+w, len(lines))
		total, trimmedEq := 0.0, 0
		for k := i; k < end; k++ {
			a, b := strings.TrimSpace(lines[k]), strings.TrimSpace(oldLines[k-i])
			switch {
			case a == b:
				total++
				trimmedEq++
			case exact || len(a) > 300 || len(b) > 300:
			default:
				total += similarity(a, b)
			}
		}
		score := total / float64(w)
		if score < 0.5 {
			continue
		}
		c := candidate{line: i + 1, score: score, text: strings.Join(lines[i:end], "\n")}
		if trimmedEq == w {
			c.note = "same text, different indentation or whitespace"
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	// Drop windows overlapping a better one.
	var out []candidate
	for _, c := range cands {
		if slices.ContainsFunc(out, func(o candidate) bool { return c.line < o.line+w && o.line < c.line+w }) {
			continue
		}
		out = append(out, c)
		if len(out) == n {
			break
		}
	}
	return out
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

// showCandidates renders closest matches with line numbers.
func showCandidates(cands []candidate) string {
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
