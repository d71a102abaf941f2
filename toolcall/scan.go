package toolcall

import (
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

// zeroBytes has the high bit set in each byte of x that is zero (exact,
// no false positives from borrows).
func zeroBytes(x uint64) uint64 {
	return ^(((x & ^uint64(hi7)) + ^uint64(hi7)) | x) & hi7
}

// indexProseSpecial returns the index of the first byte in b that may
// start markup: '<' '>' '[' '{' or '`', or -1.
func indexProseSpecial(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// '[' (0x5B) and '{' (0x7B) differ only in bit 0x20;
		// '<' (0x3C) and '>' (0x3E) only in bit 0x02.
		m := zeroBytes((x|0x2020202020202020)^(0x7B*lo7)) |
			zeroBytes((x|0x0202020202020202)^(0x3E*lo7)) |
			zeroBytes(x^(0x60*lo7))
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if proseSpecial[b[i]] {
			return i
		}
	}
	return -1
}

var proseSpecial = [256]bool{'<': true, '>': true, '[': true, '{': true, '`': true}

// indexStringSpecial returns the index of the first byte in b that ends
// or escapes a JSON string or is a raw control character, or -1.
func indexStringSpecial(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// Bytes < 0x20: the top three bits are zero.
		m := zeroBytes(x&(0xE0*lo7)) | zeroBytes(x^('"'*lo7)) | zeroBytes(x^('\\'*lo7))
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return -1
}

// hasPrefixOrPartial reports whether b starts with lit (full) or b is a
// proper prefix of lit (partial: more bytes may still complete it).
func hasPrefixOrPartial(b []byte, lit string) (full, partial bool) {
	if len(b) >= len(lit) {
		return string(b[:len(lit)]) == lit, false
	}
	return false, string(b) == lit[:len(b)]
}

// skipSpace returns the offset of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
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

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == ':' || c == '/'
}
