package toolcall

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The hot loops of the package skip ordinary bytes eight at a time
// (SWAR: SIMD within a register). Prose only matters at the few bytes that
// can open markup, and JSON strings only at quotes, backslashes and
// control characters, so these scans decide most of the throughput.

const (
	lo7 = 0x0101010101010101
	hi7 = 0x8080808080808080
)

// zeroBytes is nonzero when x has a zero byte, and then its lowest set
// bit is the high bit of the first (lowest) zero byte. A borrow can set
// the bit of a byte above a zero byte too, so callers ask only whether a
// zero byte exists and where the first one is, which makes the classic
// three-operation test enough.
func zeroBytes(x uint64) uint64 {
	return (x - lo7) &^ x & hi7
}

// byteFinder finds the next occurrence of one byte with bytes.IndexByte
// (vectorised in the runtime) and remembers the answer, so that asking
// again from a later position costs nothing until that occurrence is
// passed. Each byte of the buffer is searched at most once per finder,
// which keeps scans linear however often the caller asks.
//
// The buffer only ever grows and its bytes never change, so a remembered
// answer stays true.
type byteFinder struct {
	lo, hi int  // the byte does not occur in [lo, hi)
	found  bool // and it does occur at hi
}

// next returns the first offset ≥ pos holding c, or -1. Callers may move
// backwards (a dropped candidate rescans its span); the remembered
// interval is only used when pos falls inside it.
func (f *byteFinder) next(b []byte, pos int, c byte) int {
	from, lo := pos, pos
	if pos >= f.lo && pos <= f.hi {
		if f.found {
			return f.hi
		}
		from, lo = f.hi, f.lo
	}
	f.lo = lo
	if from < len(b) {
		if j := bytes.IndexByte(b[from:], c); j >= 0 {
			f.hi, f.found = from+j, true
			return f.hi
		}
	}
	f.hi, f.found = len(b), false
	return -1
}

// proseFinder finds the bytes that may start markup in prose:
// '<' '>' '[' '{' and '`'.
type proseFinder [len(proseSpecials)]byteFinder

const proseSpecials = "<>[{`"

// next returns the first offset ≥ pos holding a markup byte, or -1.
//
// Markup-dense text (calls separated by a line break) has the next
// markup byte within a few words: one SWAR pass over the next 64 bytes
// finds it. Past those, each finder's vectorised search takes over and
// remembers its hits, so prose is still searched once per finder.
func (f *proseFinder) next(b []byte, pos int) int {
	w := min(len(b), pos+64)
	if k := indexProseSpecial(b[pos:w]); k >= 0 {
		return pos + k
	}
	if w == len(b) {
		return -1
	}
	pos = w
	best := -1
	for k := range f {
		if h := f[k].next(b, pos, proseSpecials[k]); h >= 0 && (best < 0 || h < best) {
			best = h
		}
	}
	return best
}

// hasProseSpecial reports whether b holds a byte of proseSpecials.
func hasProseSpecial(b []byte) bool {
	return indexProseSpecial(b) >= 0
}

// indexProseSpecial returns the index of the first byte of proseSpecials
// in b, or -1.
func indexProseSpecial(b []byte) int {
	i := 0
	for ; len(b)-i >= 8; i += 8 {
		x := binary.LittleEndian.Uint64(b[i : i+8])
		// '<' and '>' differ only in bit 1, '[' and '{' only in bit 5:
		// setting that bit folds each pair into one comparison. (The
		// high-bit mask of zeroBytes is applied once, to the union.)
		a, c, d := (x|0x02*lo7)^('>'*lo7), (x|0x20*lo7)^('{'*lo7), x^('`'*lo7)
		if m := ((a - lo7) &^ a) | ((c - lo7) &^ c) | ((d - lo7) &^ d); m&hi7 != 0 {
			return i + bits.TrailingZeros64(m&hi7)>>3
		}
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case '<', '>', '[', '{', '`':
			return i
		}
	}
	return -1
}

// indexStringSpecial returns the index of the first byte in b that ends
// or escapes a JSON string or is a raw control character, or -1.
func indexStringSpecial(b []byte) int {
	i := 0
	for ; len(b)-i >= 8; i += 8 {
		x := binary.LittleEndian.Uint64(b[i : i+8])
		// zeroBytes of each, its high-bit mask applied once to the union.
		a, c, d := x&(0xE0*lo7), x^('"'*lo7), x^('\\'*lo7)
		if m := ((a - lo7) &^ a) | ((c - lo7) &^ c) | ((d - lo7) &^ d); m&hi7 != 0 {
			return i + bits.TrailingZeros64(m&hi7)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return -1
}

// indexControl returns the index of the first byte < 0x20 in b, or -1.
func indexControl(b []byte) int {
	i := 0
	for ; len(b)-i >= 8; i += 8 {
		// A byte is < 0x20 when its top three bits are zero.
		if m := zeroBytes(binary.LittleEndian.Uint64(b[i:i+8]) & (0xE0 * lo7)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return i
		}
	}
	return -1
}

// hasPrefixOrPartial reports whether b starts with lit (full) or b is a
// proper prefix of lit (partial: more bytes may still complete it).
func hasPrefixOrPartial(b []byte, lit string) (full, partial bool) {
	// The first byte by hand, the rest with the runtime's comparison:
	// most literals tried differ from b at once, and the ones that
	// match (a close tag at every block's end) are a dozen bytes long.
	if len(b) >= len(lit) {
		return len(lit) == 0 || b[0] == lit[0] && string(b[1:len(lit)]) == lit[1:], false
	}
	return false, len(b) == 0 || b[0] == lit[0] && string(b[1:]) == lit[1:len(b)]
}

// skipSpace returns the offset of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// maxBlankGap bounds the blank space a wait looks across (between an
// opener and its content, between items, after a close): each chunk
// that extends a gap then costs a bounded rescan, so a stream of blank
// space costs linear time, and a gap longer than this ends the markup.
const maxBlankGap = 256

// skipGap is skipSpace bounded by maxBlankGap: at the bound it returns
// the offset of a blank byte, which no caller takes for markup.
func skipGap(b []byte, i int) int {
	return skipSpace(b[:min(len(b), i+maxBlankGap)], i)
}

// atLineStart reports whether only up to three spaces or tabs separate
// offset i from the previous newline or the beginning of the buffer.
func atLineStart(b []byte, i int) bool {
	for k := 0; k <= 3; k++ {
		if i-k == 0 || b[i-k-1] == '\n' {
			return true
		}
		if c := b[i-k-1]; c != ' ' && c != '\t' {
			return false
		}
	}
	return false
}

// afterLabel reports a fence opened after a one-word label that starts
// its line, as Command-R's template writes its actions ("Action:
// ```json"); the bytes before p decide it, so a stream agrees with Parse.
func afterLabel(b []byte, p int) bool {
	i := p
	for i > 0 && p-i < 4 && (b[i-1] == ' ' || b[i-1] == '\t') {
		i--
	}
	if i == p || i == 0 || b[i-1] != ':' {
		return false
	}
	i--
	j := i
	for j > 0 && i-j < 32 && isLetter(b[j-1]) {
		j--
	}
	return j < i && atLineStart(b, j)
}

// isNameByte reports a byte that may be part of a tool name: an ASCII
// name character or any byte of a multi-byte rune, which validName then
// checks whole (names.go).
func isNameByte(c byte) bool {
	return c >= 0x80 || nameASCII[c]
}
