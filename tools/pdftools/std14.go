package pdftools

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

//go:generate sh -c "go run ./internal/genmetrics > std14_metrics.go"

// metrics are the widths of a font the file gives none for.
type metrics struct {
	widths map[rune]uint16
	fixed  uint16 // every glyph's width, for Courier
	other  uint16 // a character the table lacks
}

// width is the advance of the text of one code, in text space units for
// a size of 1.
func (m *metrics) width(text string) float64 {
	if m.fixed != 0 {
		return float64(m.fixed) / 1000
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
	case "Symbol", "ZapfDingbats":
		return &metrics{widths: nil, other: 600}
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
