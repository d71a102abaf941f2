package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A finder locates matching lines in one file at a time. Each worker owns
// one (it keeps scratch memory); reset gives it the next file.
type finder interface {
	reset(b []byte)
	// find returns the offset of the start of the first matching line at
	// or after pos (a line start), or -1.
	find(pos int) int
}

// literalFinder is a plain substring search.
type literalFinder struct {
	lit []byte
	b   []byte
}

func (f *literalFinder) reset(b []byte) { f.b = b }

func (f *literalFinder) find(pos int) int {
	i := bytes.Index(f.b[pos:], f.lit)
	if i < 0 {
		return -1
	}
	return lineStart(f.b, pos+i)
}

// regexFinder runs a line-only regexp. When every match must contain one
// of a few literals (ripgrep's trick), it finds candidate lines by
// scanning for the literals and runs the regexp on those lines only:
// Go's regexp is slow on large inputs but fast on a line, where it can
// backtrack.
type regexFinder struct {
	rx    *regexp.Regexp
	lits  []litScanner // any match contains one of these; nil: no prefilter
	kfold bool         // folded literals hold 'k' or 's', which fold to non-ASCII runes
	// width, when positive, bounds the bytes a match spans, and the
	// regexp has no assertions (^ $ \b): on a long line, the regexp runs
	// on the window around each candidate instead of the whole line.
	width int

	b      []byte
	usePre bool
	// The line [ls, le) holding the last candidate, kept so that the
	// candidates of one long line do not each scan it for its ends.
	ls, le int
}

func newRegexFinder(rx *regexp.Regexp, re *syntax.Regexp) *regexFinder {
	f := &regexFinder{rx: rx}
	if w := maxWidth(re); w > 0 && w <= maxWindow {
		f.width = w
	}
	n, ok := required(re)
	if !ok || len(n.lits) == 0 || len(n.lits) > 8 {
		return f
	}
	for _, l := range n.lits {
		if l == "" {
			return f
		}
		s := litScanner{lit: []byte(l)}
		if n.fold {
			if !isASCII(l) {
				return f // folding non-ASCII needs the regexp itself
			}
			s.lit = []byte(strings.ToLower(l))
			if strings.ContainsAny(l, "ksKS") {
				f.kfold = true
			}
			s.fold, s.rare = true, rarestFoldable(s.lit)
			s.rareLo, s.rareUp = s.lit[s.rare], upper(s.lit[s.rare])
		}
		if len(n.lits) == 1 {
			s.before, s.after = n.before, n.after
		}
		f.lits = append(f.lits, s)
	}
	return f
}

func (f *regexFinder) reset(b []byte) {
	f.b = b
	f.ls, f.le = 0, -1
	f.usePre = f.lits != nil
	// U+212A KELVIN SIGN folds to k, U+017F LONG S to s: a file holding
	// them is searched with the regexp alone.
	if f.usePre && f.kfold && (bytes.Contains(b, []byte("\u212a")) || bytes.Contains(b, []byte("\u017f"))) {
		f.usePre = false
	}
	for k := range f.lits {
		f.lits[k].next, f.lits[k].nextLo, f.lits[k].nextUp = -2, -2, -2
	}
}

func (f *regexFinder) find(pos int) int {
	b := f.b
	if !f.usePre {
		if pos >= len(b) {
			return -1
		}
		loc := f.rx.FindIndex(b[pos:])
		if loc == nil {
			return -1
		}
		return lineStart(b, pos+loc[0])
	}
	from := pos // where the literals are looked for; pos stays a line start
	for {
		// The earliest occurrence of any literal at or after from.
		best := -1
		for k := range f.lits {
			s := &f.lits[k]
			if s.next == -1 {
				continue
			}
			if s.next < from {
				s.next = s.scan(b, from)
				if s.next < 0 {
					continue
				}
			}
			if best < 0 || s.next < best {
				best = s.next
			}
		}
		if best < 0 {
			return -1
		}
		if best < f.ls || best >= f.le {
			f.ls = lineStart(b, best)
			f.le = bytes.IndexByte(b[best:], '\n')
			if f.le < 0 {
				f.le = len(b)
			} else {
				f.le += best
			}
		}
		start, end := f.ls, f.le
		if f.width > 0 && end-start > longLine {
			// A match holding this occurrence lies within width bytes of
			// it; the next occurrence on the line gets its own window. The
			// cost stays linear however long the line is.
			if f.rx.Match(b[max(start, best-f.width):min(end, best+f.width)]) {
				return start
			}
			from = best + 1
			continue
		}
		if f.rx.Match(b[start:end]) {
			return start
		}
		from = end + 1
		if from > len(b) {
			return -1
		}
	}
}

// Lines longer than longLine are searched in windows when the regexp's
// matches are at most maxWindow bytes wide.
const (
	longLine  = 4 << 10
	maxWindow = 256
)

// maxWidth returns the most bytes a match of re can span, or -1 when that
// is unbounded or re holds an assertion, whose meaning a window's edges
// would change.
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch:
		return 0
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return utf8.UTFMax * len(re.Rune)
		}
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		switch hi := re.Rune[len(re.Rune)-1]; {
		case hi >= 0x10000:
			return 4
		case hi >= 0x800:
			return 3
		case hi >= utf8.RuneSelf:
			return 2
		}
		return 1
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpRepeat:
		w := maxWidth(re.Sub[0])
		if w < 0 || re.Max < 0 {
			return -1
		}
		return w * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			w := maxWidth(sub)
			if w < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += w
			} else {
				n = max(n, w)
			}
		}
		return n
	}
	return -1 // star, plus, assertions
}

// litScanner finds the occurrences of one required literal whose
// neighbours fit the guards.
type litScanner struct {
	lit []byte // exact, or lowercased when fold
	// fold: lit matches ASCII case-insensitively. Candidates are found by
	// scanning for lit[rare] in either case, the rarest byte of lit.
	fold           bool
	rare           int
	rareLo, rareUp byte
	// before and after, when set, are the bytes that can come right
	// before and after the literal in a match.
	before, after *byteSet

	next, nextLo, nextUp int // cached positions; -2: not searched, -1: none
}

// scan returns the start of the first occurrence at or after pos that
// fits the guards, or -1.
func (s *litScanner) scan(b []byte, pos int) int {
	for {
		var p int
		if !s.fold {
			i := bytes.Index(b[pos:], s.lit)
			if i < 0 {
				return -1
			}
			p = pos + i
		} else if p = s.foldIndex(b, pos); p < 0 {
			return -1
		}
		end := p + len(s.lit)
		if (s.before == nil || (p > 0 && s.before[b[p-1]])) && (s.after == nil || (end < len(b) && s.after[b[end]])) {
			return p
		}
		pos = p + 1
	}
}

// foldIndex finds lit in b at or after pos, ASCII case-insensitively.
func (s *litScanner) foldIndex(b []byte, pos int) int {
	from := pos + s.rare
	for from < len(b) {
		if s.nextLo != -1 && s.nextLo < from {
			s.nextLo = indexFrom(b, from, s.rareLo)
		}
		if s.rareUp != s.rareLo && s.nextUp != -1 && s.nextUp < from {
			s.nextUp = indexFrom(b, from, s.rareUp)
		}
		c := s.nextLo
		if s.rareUp != s.rareLo && s.nextUp >= 0 && (c < 0 || s.nextUp < c) {
			c = s.nextUp
		}
		if c < 0 {
			return -1
		}
		p := c - s.rare
		if p+len(s.lit) <= len(b) && asciiEqualFold(b[p:p+len(s.lit)], s.lit) {
			return p
		}
		from = c + 1
	}
	return -1
}

func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// asciiEqualFold reports whether a equals lower (lowercase ASCII) when
// ASCII letters in a are lowered.
func asciiEqualFold(a, lower []byte) bool {
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// byteRarity ranks lowercase letters from common to rare in source code
// and prose; other bytes rank by class below.
const byteRarity = "etaoinsrlcdupmhfgbyvwkxjqz"

// rarestFoldable returns the index of the byte of lit (lowercase ASCII)
// that is rarest, never 'k' or 's', whose other case may be a non-ASCII
// rune.
func rarestFoldable(lit []byte) int {
	best, bestRank := 0, -1
	for i, c := range lit {
		rank := 0
		switch {
		case c == 'k' || c == 's':
			continue
		case 'a' <= c && c <= 'z':
			rank = 10 + strings.IndexByte(byteRarity, c)
		case c == ' ' || c == '\t':
			rank = 0
		case '0' <= c && c <= '9':
			rank = 20
		default:
			rank = 30
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

func lineStart(b []byte, i int) int { return bytes.LastIndexByte(b[:i], '\n') + 1 }

// need is what every match of a regexp contains: one of lits (ASCII
// case-insensitively when fold); with one literal, the bytes that can
// come right before and after it (nil: any).
type need struct {
	lits          []string
	fold          bool
	before, after *byteSet
}

// required returns what every match of re contains; ok is false when
// nothing useful is known.
func required(re *syntax.Regexp) (n need, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return need{lits: []string{string(re.Rune)}, fold: re.Flags&syntax.FoldCase != 0}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// The child whose shortest literal is longest filters best. A
		// folded and an exact set are not mixed.
		bestLen, best := 0, -1
		for i, sub := range re.Sub {
			c, ok := required(sub)
			if !ok {
				continue
			}
			short := len(c.lits[0])
			for _, s := range c.lits {
				short = min(short, len(s))
			}
			if short > bestLen {
				bestLen, n, best = short, c, i
			}
		}
		if best < 0 {
			return need{}, false
		}
		if re.Sub[best].Op == syntax.OpLiteral {
			if best > 0 {
				n.before = lastBytes(re.Sub[best-1])
			}
			if best+1 < len(re.Sub) {
				n.after = firstBytes(re.Sub[best+1])
			}
		}
		return n, true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			c, ok := required(sub)
			if !ok {
				return need{}, false
			}
			if len(n.lits) > 0 && c.fold != n.fold {
				return need{}, false
			}
			n.lits, n.fold = append(n.lits, c.lits...), c.fold
		}
		n.before, n.after = nil, nil
		return n, len(n.lits) > 0
	}
	return need{}, false
}

// byteSet is a set of byte values.
type byteSet [256]bool

// firstBytes returns the bytes a match of re can start with, or nil when
// any byte can (or re can match the empty string).
func firstBytes(re *syntax.Regexp) *byteSet {
	return edgeBytes(re, true)
}

// lastBytes is firstBytes for the last byte of a match.
func lastBytes(re *syntax.Regexp) *byteSet {
	return edgeBytes(re, false)
}

func edgeBytes(re *syntax.Regexp, first bool) *byteSet {
	switch re.Op {
	case syntax.OpLiteral:
		r := re.Rune[len(re.Rune)-1]
		if first {
			r = re.Rune[0]
		}
		var s byteSet
		addRune(&s, r, first)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				addRune(&s, f, first)
			}
		}
		return &s
	case syntax.OpCharClass:
		var s byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for c := lo; c <= min(hi, utf8.RuneSelf-1); c++ {
				s[c] = true
			}
			if hi >= utf8.RuneSelf {
				// Any lead byte first, any continuation byte last.
				from, to := 0xC2, 0xF4
				if !first {
					from, to = 0x80, 0xBF
				}
				for c := from; c <= to; c++ {
					s[c] = true
				}
			}
		}
		return &s
	case syntax.OpCapture, syntax.OpPlus:
		return edgeBytes(re.Sub[0], first)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return edgeBytes(re.Sub[0], first)
		}
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil
		}
		if first {
			return edgeBytes(re.Sub[0], first)
		}
		return edgeBytes(re.Sub[len(re.Sub)-1], first)
	case syntax.OpAlternate:
		var s byteSet
		for _, sub := range re.Sub {
			e := edgeBytes(sub, first)
			if e == nil {
				return nil
			}
			for c, in := range e {
				s[c] = s[c] || in
			}
		}
		return &s
	}
	return nil
}

// addRune adds r's first (or last) UTF-8 byte to s.
func addRune(s *byteSet, r rune, first bool) {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	if first {
		s[buf[0]] = true
	} else {
		s[buf[n-1]] = true
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
