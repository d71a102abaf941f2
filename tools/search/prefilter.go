package search

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"strings"
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
// of a few literals (ripgrep's trick), it finds candidate lines with
// bytes.Index and runs the regexp on those lines only: Go's regexp is
// slow on large inputs but fast on a line, where it can backtrack.
type regexFinder struct {
	rx    *regexp.Regexp
	lits  [][]byte // any match contains one of these; nil: no prefilter
	fold  bool     // lits are ASCII-lowercased; search the lowered copy
	kfold bool     // lits contain 'k' or 's', which fold to non-ASCII runes

	b, hay  []byte // the file, and what the literals are searched in
	lowered []byte // scratch for the lowered copy
	next    []int  // per literal: next occurrence ≥ the last pos, or -1
	usePre  bool
}

func newRegexFinder(rx *regexp.Regexp, re *syntax.Regexp) *regexFinder {
	f := &regexFinder{rx: rx}
	lits, fold, ok := required(re)
	if !ok || len(lits) == 0 || len(lits) > 8 {
		return f
	}
	for _, l := range lits {
		if l == "" {
			return f
		}
		if fold {
			if !isASCII(l) {
				return f // folding non-ASCII needs the regexp itself
			}
			l = strings.ToLower(l)
			if strings.ContainsAny(l, "ks") {
				f.kfold = true
			}
		}
		f.lits = append(f.lits, []byte(l))
	}
	f.fold = fold
	return f
}

func (f *regexFinder) reset(b []byte) {
	f.b, f.hay = b, b
	f.usePre = f.lits != nil
	if f.usePre && f.fold {
		// U+212A KELVIN SIGN folds to k, U+017F LONG S to s: a file holding
		// them is searched with the regexp alone.
		if f.kfold && (bytes.Contains(b, []byte("\u212a")) || bytes.Contains(b, []byte("\u017f"))) {
			f.usePre = false
		} else {
			f.lowered = asciiLower(f.lowered[:0], b)
			f.hay = f.lowered
		}
	}
	f.next = f.next[:0]
	for range f.lits {
		f.next = append(f.next, -2) // not searched yet
	}
}

func (f *regexFinder) find(pos int) int {
	if !f.usePre {
		for pos <= len(f.b) && pos < len(f.b) {
			loc := f.rx.FindIndex(f.b[pos:])
			if loc == nil {
				return -1
			}
			return lineStart(f.b, pos+loc[0])
		}
		return -1
	}
	for {
		// The earliest occurrence of any literal at or after pos.
		best := -1
		for k, lit := range f.lits {
			if f.next[k] == -1 {
				continue
			}
			if f.next[k] < pos {
				i := bytes.Index(f.hay[pos:], lit)
				if i < 0 {
					f.next[k] = -1
					continue
				}
				f.next[k] = pos + i
			}
			if best < 0 || f.next[k] < best {
				best = f.next[k]
			}
		}
		if best < 0 {
			return -1
		}
		start := lineStart(f.b, best)
		end := bytes.IndexByte(f.b[best:], '\n')
		if end < 0 {
			end = len(f.b)
		} else {
			end += best
		}
		if f.rx.Match(f.b[start:end]) {
			return start
		}
		pos = end + 1
		if pos > len(f.b) {
			return -1
		}
	}
}

func lineStart(b []byte, i int) int { return bytes.LastIndexByte(b[:i], '\n') + 1 }

// required returns literals one of which every match of re contains, and
// whether they are case-folded; ok is false when no such set is known.
func required(re *syntax.Regexp) (lits []string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// The child whose shortest literal is longest filters best. A
		// folded and an exact set are not mixed.
		bestLen := 0
		for _, sub := range re.Sub {
			l, f, ok := required(sub)
			if !ok {
				continue
			}
			short := len(l[0])
			for _, s := range l {
				short = min(short, len(s))
			}
			if short > bestLen {
				bestLen, lits, fold = short, l, f
			}
		}
		return lits, fold, lits != nil
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			l, f, ok := required(sub)
			if !ok {
				return nil, false, false
			}
			if len(lits) > 0 && f != fold {
				return nil, false, false
			}
			lits, fold = append(lits, l...), f
		}
		return lits, fold, len(lits) > 0
	}
	return nil, false, false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiLower appends b with ASCII letters lowered; other bytes, including
// every byte of a multi-byte rune, are unchanged, so offsets line up. It
// works on eight bytes at a time: this runs over every byte of every file
// a case-insensitive search reads.
func asciiLower(dst, b []byte) []byte {
	n := len(dst)
	dst = append(dst, b...)
	d := dst[n:]
	const (
		lo7  = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
		geA  = 0x3f3f3f3f3f3f3f3f // 0x80-'A': sets a byte's high bit when it is ≥ 'A'
		gtZ  = 0x2525252525252525 // 0x80-'Z'-1: sets it when it is > 'Z'
	)
	i := 0
	for ; i+8 <= len(d); i += 8 {
		w := binary.LittleEndian.Uint64(d[i:])
		h := w & lo7 // no carries between bytes
		upper := (h + geA) &^ (h + gtZ) &^ w & high
		if upper != 0 {
			binary.LittleEndian.PutUint64(d[i:], w|upper>>2)
		}
	}
	for ; i < len(d); i++ {
		if c := d[i]; 'A' <= c && c <= 'Z' {
			d[i] = c + 'a' - 'A'
		}
	}
	return dst
}
