package pdftools

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Bounds of what one font's tables may hold; a damaged or hostile file
// cannot make a font cost more than this to read.
const (
	maxCMapEntries  = 1 << 16 // bfchar entries and bfrange/W ranges
	maxCMapOperands = 1 << 18 // values on a CMap's operand stack
	maxCMapBytes    = 8 << 20 // of a CMap stream, decoded
)

// pdfFont is what the page walker needs of a PDF font: how to cut a shown
// string into character codes, each code's advance width and its text.
type pdfFont struct {
	// codes splits shown strings: nil means one byte a code (simple
	// fonts).
	codes *codespace
	// width is a code's advance in text space units for a size of 1.
	width func(code uint32) float64
	// text is a code's Unicode text, cached per code.
	toUnicode *cmap
	simple    pdf.TextEncoding // fallback for simple fonts
	// builtin is the encoding inside an embedded Type 1 font program,
	// for the codes the font dictionary's encoding leaves to it.
	builtin map[byte]string
	cache   map[uint32]string
}

// newFont reads the font dictionary v.
func newFont(v pdf.Value) *pdfFont {
	f := &pdfFont{cache: map[uint32]string{}}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.toUnicode = readCMap(tu)
	}
	if v.Key("Subtype").Name() == "Type0" {
		f.codes = type0Codes(v.Key("Encoding"))
		f.width = cidWidths(v.Key("DescendantFonts").Index(0))
		return f
	}
	lf := pdf.Font{V: v}
	f.simple = lf.Encoder()
	enc := v.Key("Encoding")
	if enc.IsNull() && strings.HasPrefix(subsetName(v.Key("BaseFont").Name()), "Symbol") {
		f.simple = symbolEncoding{}
	}
	if enc.IsNull() || (enc.Kind() == pdf.Dict && enc.Key("BaseEncoding").IsNull()) {
		f.builtin = builtinEncoding(v.Key("FontDescriptor").Key("FontFile"), differences(enc))
	}
	f.width = simpleWidths(v, f)
	return f
}

// missingFont stands in for a font the resources do not define: one
// byte a code, read as Latin-1, with Helvetica's widths.
func missingFont() *pdfFont {
	f := &pdfFont{cache: map[uint32]string{}}
	f.width = func(code uint32) float64 { return defaultMetrics.width(code, f.text(code, 1)) }
	return f
}

// text returns the Unicode text of code.
func (f *pdfFont) text(code uint32, n int) string {
	if t, ok := f.cache[code]; ok {
		return t
	}
	t, ok := "", false
	if f.toUnicode != nil {
		t, ok = f.toUnicode.lookup(code, n)
	}
	switch {
	case ok:
	case code < 256 && f.builtin[byte(code)] != "":
		t = f.builtin[byte(code)]
	case f.simple != nil:
		t = f.simple.Decode(string([]byte{byte(code)}))
	case f.codes == nil:
		t = string(rune(code)) // no font at all: Latin-1
	}
	f.cache[code] = t
	return t
}

// next cuts the first code off s and returns it with its length in bytes.
func (f *pdfFont) next(s string) (code uint32, n int) {
	if f.codes == nil {
		return uint32(s[0]), 1
	}
	return f.codes.next(s)
}

// codespace is a CMap's codespace ranges, by code length.
type codespace struct {
	ranges [4][][2]uint32
}

// next reads one code from s: the shortest prefix inside a range, or,
// failing that, as many bytes as the shortest range has (at least one).
func (c *codespace) next(s string) (uint32, int) {
	var code uint32
	for n := 1; n <= 4 && n <= len(s); n++ {
		code = code<<8 | uint32(s[n-1])
		for _, r := range c.ranges[n-1] {
			if r[0] <= code && code <= r[1] {
				return code, n
			}
		}
	}
	for n := 1; n <= 4; n++ {
		if len(c.ranges[n-1]) > 0 {
			n = min(n, len(s))
			return bigEndian(s[:n]), n
		}
	}
	return uint32(s[0]), 1
}

func bigEndian(s string) uint32 {
	var v uint32
	for i := 0; i < len(s) && i < 4; i++ {
		v = v<<8 | uint32(s[i])
	}
	return v
}

// twoByte is the codespace of Identity-H and of the predefined Unicode
// CMaps: every code is two bytes.
var twoByte = &codespace{ranges: [4][][2]uint32{1: {{0, 0xFFFF}}}}

// type0Codes returns the codespace of a composite font's Encoding: an
// embedded CMap's own ranges, or two bytes for the predefined ones.
func type0Codes(enc pdf.Value) *codespace {
	if enc.Kind() == pdf.Stream {
		if m := readCMap(enc); m != nil && m.hasSpace {
			return &m.space
		}
	}
	return twoByte
}

// cmap is a ToUnicode (or encoding) CMap: its codespace and its mappings.
type cmap struct {
	space    codespace
	hasSpace bool
	chars    map[uint32]string
	ranges   []cmapRange
}

type cmapRange struct {
	lo, hi uint32
	n      int      // code length in bytes
	dst    string   // UTF-16BE of lo, incremented along the range
	array  []string // or one UTF-16BE string per code
}

// lookup returns the text of code, n bytes long.
func (m *cmap) lookup(code uint32, n int) (string, bool) {
	if t, ok := m.chars[code]; ok {
		return t, true
	}
	for _, r := range m.ranges {
		if code < r.lo || code > r.hi {
			continue
		}
		off := code - r.lo
		if r.array != nil {
			if int(off) < len(r.array) {
				return utf16Text(r.array[off]), true
			}
			return "", false
		}
		// The last UTF-16 code unit of dst counts up along the range.
		b := []byte(r.dst)
		if len(b) >= 2 {
			last := uint32(b[len(b)-2])<<8 | uint32(b[len(b)-1])
			last += off
			b[len(b)-2], b[len(b)-1] = byte(last>>8), byte(last)
		}
		return utf16Text(string(b)), true
	}
	return "", false
}

// utf16Text decodes a CMap destination string (UTF-16BE).
func utf16Text(s string) string {
	if len(s) == 1 {
		return s
	}
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return string(utf16.Decode(u))
}

// readCMap parses a CMap stream: its codespace ranges and its bfchar and
// bfrange mappings; everything else in it is skipped. Entries past
// maxCMapEntries, and bytes past maxCMapBytes, are ignored. A stream that
// cannot be read gives nil.
func readCMap(v pdf.Value) *cmap {
	rc := v.Reader()
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxCMapBytes))
	if err != nil && len(data) == 0 {
		return nil
	}
	return parseCMap(data)
}

// parseCMap reads a CMap's codespace and mappings from its text.
func parseCMap(data []byte) *cmap {
	m := &cmap{chars: map[uint32]string{}}
	var operands []cmapToken
	entries := 0
	lx := cmapLexer{data: data}
	for {
		tok, ok := lx.next()
		if !ok {
			break
		}
		if tok.kind != tokOperator {
			if len(operands) < maxCMapOperands {
				operands = append(operands, tok)
			}
			continue
		}
		k := len(operands)
		switch tok.text {
		case "endcodespacerange":
			for i := 0; i+1 < k; i += 2 {
				lo, hi := operands[i].text, operands[i+1].text
				if len(lo) == 0 || len(lo) != len(hi) || len(lo) > 4 {
					continue
				}
				m.space.ranges[len(lo)-1] = append(m.space.ranges[len(lo)-1], [2]uint32{bigEndian(lo), bigEndian(hi)})
				m.hasSpace = true
			}
		case "endbfchar":
			for i := 0; i+1 < k && entries < maxCMapEntries; i += 2 {
				src, dst := operands[i], operands[i+1]
				if dst.kind == tokName {
					m.chars[bigEndian(src.text)] = glyphText(dst.text)
				} else {
					m.chars[bigEndian(src.text)] = utf16Text(dst.text)
				}
				entries++
			}
		case "endbfrange":
			for i := 0; i+2 < k && entries < maxCMapEntries; {
				lo, hi, dst := operands[i].text, operands[i+1].text, operands[i+2]
				i += 3
				r := cmapRange{lo: bigEndian(lo), hi: bigEndian(hi), n: len(lo)}
				if dst.kind == tokArrayStart {
					for i < k && operands[i].kind != tokArrayEnd {
						if int(r.hi-r.lo) >= len(r.array) {
							r.array = append(r.array, operands[i].text)
						}
						i++
					}
					i++ // the ]
					if r.array == nil {
						continue
					}
				} else {
					r.dst = dst.text
				}
				if r.hi < r.lo {
					continue
				}
				m.ranges = append(m.ranges, r)
				entries++
			}
		}
		operands = operands[:0]
	}
	return m
}

// glyphText is the text of a glyph name in a CMap or Differences entry
// the walker cannot otherwise map: uniXXXX and uXXXX names, and single
// characters.
func glyphText(name string) string {
	if t, ok := glyphNames[name]; ok {
		return t
	}
	if r, ok := glyphNameRune(name); ok {
		return string(r)
	}
	return ""
}

// simpleWidths returns the advance widths of a simple font: its Widths
// array, the standard 14 fonts' metrics when it has none, and otherwise
// an average width.
func simpleWidths(v pdf.Value, f *pdfFont) func(uint32) float64 {
	scale := 0.001
	if v.Key("Subtype").Name() == "Type3" {
		if fm := v.Key("FontMatrix"); fm.Len() == 6 {
			scale = fm.Index(0).Float64()
		}
	}
	missing := v.Key("FontDescriptor").Key("MissingWidth").Float64()
	first := int(v.Key("FirstChar").Int64())
	ws := v.Key("Widths")
	if n := ws.Len(); n > 0 {
		table := make([]float64, min(n, 256))
		for i := range table {
			table[i] = ws.Index(i).Float64() * scale
		}
		std := standardMetrics(v.Key("BaseFont").Name())
		return func(code uint32) float64 {
			if i := int(code) - first; i >= 0 && i < len(table) {
				return table[i]
			}
			if std != nil {
				return std.width(code, f.text(code, 1))
			}
			return missing * scale
		}
	}
	std := standardMetrics(v.Key("BaseFont").Name())
	if std == nil {
		std = &defaultMetrics
	}
	return func(code uint32) float64 { return std.width(code, f.text(code, 1)) }
}

// cidWidths returns the advance widths of a CIDFont: its W array over
// its default width DW.
func cidWidths(d pdf.Value) func(uint32) float64 {
	dw := 1000.0
	if v := d.Key("DW"); v.Kind() == pdf.Integer || v.Kind() == pdf.Real {
		dw = v.Float64()
	}
	type run struct {
		lo, hi uint32
		w      []float64 // per code, or one width for the whole run
	}
	var runs []run
	w := d.Key("W")
	for i := 0; i < w.Len() && len(runs) < maxCMapEntries; {
		lo := w.Index(i)
		if i+1 >= w.Len() {
			break
		}
		if next := w.Index(i + 1); next.Kind() == pdf.Array {
			ws := make([]float64, next.Len())
			for j := range ws {
				ws[j] = next.Index(j).Float64()
			}
			if len(ws) > 0 {
				runs = append(runs, run{uint32(lo.Int64()), uint32(lo.Int64()) + uint32(len(ws)) - 1, ws})
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		runs = append(runs, run{uint32(lo.Int64()), uint32(w.Index(i + 1).Int64()), []float64{w.Index(i + 2).Float64()}})
		i += 3
	}
	cache := map[uint32]float64{}
	return func(code uint32) float64 {
		if v, ok := cache[code]; ok {
			return v
		}
		v := dw
		for _, r := range runs {
			if code >= r.lo && code <= r.hi {
				if len(r.w) == 1 {
					v = r.w[0]
				} else {
					v = r.w[code-r.lo]
				}
				break
			}
		}
		v /= 1000
		cache[code] = v
		return v
	}
}

// subsetName strips a subset tag ("ABCDEF+Times-Roman").
func subsetName(name string) string {
	if i := strings.IndexByte(name, '+'); i == 6 {
		return name[7:]
	}
	return name
}

// differences returns the codes an encoding dictionary's Differences
// array names.
func differences(enc pdf.Value) map[byte]bool {
	d := enc.Key("Differences")
	codes := map[byte]bool{}
	n := -1
	for i := 0; i < d.Len() && i < 512; i++ {
		switch x := d.Index(i); x.Kind() {
		case pdf.Integer:
			n = int(x.Int64())
		case pdf.Name:
			if n >= 0 && n < 256 {
				codes[byte(n)] = true
			}
			n++
		}
	}
	return codes
}

// builtinEncoding reads the encoding a Type 1 font program (FontFile)
// carries in its clear-text part, as the text of each code, leaving out
// the codes in skip (the font dictionary's Differences decide those).
// It returns nil when the program uses the standard encoding or has
// none that can be read.
func builtinEncoding(fontFile pdf.Value, skip map[byte]bool) map[byte]string {
	if fontFile.Kind() != pdf.Stream {
		return nil
	}
	n := fontFile.Key("Length1").Int64()
	if n <= 0 || n > maxFontHeader {
		n = maxFontHeader
	}
	rc := fontFile.Reader()
	defer rc.Close()
	clear, _ := io.ReadAll(io.LimitReader(rc, n))
	i := bytes.Index(clear, []byte("/Encoding"))
	if i < 0 || bytes.HasPrefix(bytes.TrimLeft(clear[i+len("/Encoding"):], " \t\r\n"), []byte("StandardEncoding")) {
		return nil
	}
	out := map[byte]string{}
	for _, m := range encodingEntry.FindAllSubmatch(clear[i:], 256) {
		code, err := strconv.Atoi(string(m[1]))
		if err != nil || code < 0 || code > 255 || skip[byte(code)] {
			continue
		}
		if t := glyphText(string(m[2])); t != "" {
			out[byte(code)] = t
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// maxFontHeader bounds the clear-text part of a font program read for
// its encoding.
const maxFontHeader = 1 << 20

// encodingEntry is one entry of a Type 1 font's encoding array.
var encodingEntry = lazyregexp.New(`dup\s+(\d+)\s*/([^\s/\[\]{}()<>]+)\s+put`)
