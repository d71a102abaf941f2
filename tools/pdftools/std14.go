package pdftools

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

//go:generate sh -c "go run ./internal/genmetrics > std14_metrics.go"

// metrics are the widths of a font the file gives none for.
type metrics struct {
	byCode *[256]uint16 // for Symbol, by code in its built-in encoding
	widths map[rune]uint16
	fixed  uint16 // every glyph's width, for Courier
	other  uint16 // a character the table lacks
}

// width is the advance of the text of one code, in text space units for
// a size of 1.
func (m *metrics) width(code uint32, text string) float64 {
	if m.fixed != 0 {
		return float64(m.fixed) / 1000
	}
	if m.byCode != nil && code < 256 && m.byCode[code] != 0 {
		return float64(m.byCode[code]) / 1000
	}
	r, _ := utf8.DecodeRuneInString(text)
	if w, ok := m.widths[r]; ok {
		return float64(w) / 1000
	}
	return float64(m.other) / 1000
}

// defaultMetrics stands in for a font that has neither widths nor a
// standard name: Helvetica's, the usual substitute.
var defaultMetrics = metrics{widths: std14Widths["Helvetica"], other: 556}

// standardMetrics returns the built-in metrics of one of the standard 14
// fonts (and of the names producers use for them), or nil.
func standardMetrics(baseFont string) *metrics {
	name := subsetName(baseFont)
	family, style, _ := strings.Cut(name, "-")
	if family == name {
		family, style, _ = strings.Cut(name, ",") // TrueType style: "Arial,Bold"
	}
	bold := strings.Contains(style, "Bold")
	italic := strings.Contains(style, "Italic") || strings.Contains(style, "Oblique")
	switch family {
	case "Courier", "CourierNew", "CourierNewPS":
		return &metrics{fixed: 600}
	case "Helvetica", "Arial", "ArialMT":
		if bold {
			return &metrics{widths: std14Widths["Helvetica-Bold"], other: 611}
		}
		return &metrics{widths: std14Widths["Helvetica"], other: 556}
	case "Times", "TimesNewRoman", "TimesNewRomanPS", "TimesNewRomanPSMT":
		key := "Times-Roman"
		switch {
		case bold && italic:
			key = "Times-BoldItalic"
		case bold:
			key = "Times-Bold"
		case italic:
			key = "Times-Italic"
		}
		return &metrics{widths: std14Widths[key], other: 500}
	case "Symbol":
		return &metrics{byCode: &symbolWidths, other: 600}
	case "ZapfDingbats":
		return &metrics{other: 788}
	}
	return nil
}

// glyphNameRune maps the glyph names that carry their character in the
// name itself: uniXXXX, uXXXX[XX] and one-letter names.
func glyphNameRune(name string) (rune, bool) {
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && r != utf8.RuneError {
		return r, true
	}
	hex := ""
	switch {
	case strings.HasPrefix(name, "uni") && len(name) == 7:
		hex = name[3:]
	case strings.HasPrefix(name, "u") && len(name) >= 5 && len(name) <= 7:
		hex = name[1:]
	default:
		return 0, false
	}
	n, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return 0, false
	}
	return rune(n), true
}

// symbolEncoding is the Symbol font's built-in encoding, the one it has
// when the file names none: Greek letters where Latin ones would be, and
// mathematical signs.
type symbolEncoding struct{}

func (symbolEncoding) Decode(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteRune([]rune("ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ")[c-'A'])
		case c >= 'a' && c <= 'z':
			b.WriteRune([]rune("αβχδεφγηιϕκλμνοπθρστυϖωξψζ")[c-'a'])
		case c >= 0xA0:
			if r := []rune(symbolHigh)[c-0xA0]; r != '?' {
				b.WriteRune(r)
			}
		default:
			if r, ok := symbolLow[c]; ok {
				b.WriteRune(r)
			} else if c >= 0x20 && c < 0x7F {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

var symbolLow = map[byte]rune{'"': '∀', '$': '∃', '\'': '∋', '*': '∗', '-': '−', '@': '≅', '\\': '∴', '^': '⊥', '`': '‾', '~': '∼'}

// symbolHigh is codes 0xA0-0xFF; '?' marks a code with no character.
const symbolHigh = "€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…⏐⎯↵ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇®©™∏√⋅¬∧∨⇔⇐⇑⇒⇓◊〈®©™∑⎛⎜⎝⎡⎢⎣⎧⎨⎩⎪?〉∫⌠⎮⌡⎞⎟⎠⎤⎥⎦⎫⎬⎭?"
