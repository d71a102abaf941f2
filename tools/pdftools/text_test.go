package pdftools

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// minimalPDF builds a one-page PDF whose page shows content with the
// standard Helvetica font (no widths, as pdfTeX-free producers leave it),
// with a correct cross-reference table.
func minimalPDF(content string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+1, content),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// TestPageTextOperators pins how text operators become lines and spaces.
func TestPageTextOperators(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"kerned word gap (pdfTeX)", "BT /F1 12 Tf 72 700 Td [(Hello)-333(world)] TJ ET", "Hello world"},
		{"kerning inside a word", "BT /F1 12 Tf 72 700 Td [(W)80(ave)] TJ ET", "Wave"},
		{"next line by Td", "BT /F1 12 Tf 72 700 Td (one) Tj 0 -14 Td (two) Tj ET", "one\ntwo"},
		{"T* and quote", "BT /F1 12 Tf 14 TL 72 700 Td (a) Tj T* (b) Tj (c) ' ET", "a\nb\nc"},
		{"same-line Tm jump", "BT /F1 12 Tf 1 0 0 1 72 700 Tm (left) Tj 1 0 0 1 300 700 Tm (right) Tj ET", "left right"},
		{"new-line Tm", "BT /F1 12 Tf 1 0 0 1 72 700 Tm (up) Tj 1 0 0 1 72 680 Tm (down) Tj ET", "up\ndown"},
		{"wide character spacing", "BT /F1 12 Tf 4 Tc 72 700 Td (ab) Tj ET", "a b"},
		// Helvetica's "one" is 1.668 em: 20.016 units at 12.
		{"word placed after a gap", "BT /F1 12 Tf 1 0 0 1 72 700 Tm (one) Tj 1 0 0 1 95 700 Tm (two) Tj ET", "one two"},
		{"word placed against the last", "BT /F1 12 Tf 1 0 0 1 72 700 Tm (one) Tj 1 0 0 1 92.5 700 Tm (two) Tj ET", "onetwo"},
		{"TJ gap under horizontal scaling", "BT /F1 12 Tf 50 Tz 72 700 Td [(ab)-300(cd)] TJ ET", "ab cd"},
		{"TJ kern under horizontal scaling", "BT /F1 12 Tf 50 Tz 72 700 Td [(ab)-150(cd)] TJ ET", "abcd"},
		{"spacing after the last glyph is a gap", "BT /F1 12 Tf 72 700 Td 3 Tc (a) Tj 0 Tc 12 0 Td (b) Tj ET", "a b"},
		{"word spacing widens space glyphs only", "BT /F1 12 Tf 72 700 Td 20 Tw (ab cd) Tj ET", "ab cd"},
		{"rotated by the CTM", "q 0 1 -1 0 300 300 cm BT /F1 12 Tf (up) Tj ( side) Tj 0 -14 Td (next) Tj ET Q", "up side\nnext"},
		{"scaled by the CTM", "q 0.1 0 0 0.1 0 0 cm BT /F1 120 Tf 720 7000 Td [(ab)-50(cd)-400(ef)] TJ ET Q", "abcd ef"},
		{"overprint drawn once", "BT /F1 12 Tf 72 700 Td (B) Tj 0.3 0 Td (B) Tj ET", "B"},
		{"text off the page is not shown", "BT /F1 12 Tf 72 700 Td (seen) Tj 600 0 Td (hidden) Tj -700 0 Td (gone) Tj ET", "seen"},
		{"superscript stays on the line", "BT /F1 12 Tf 72 700 Td (x) Tj 4 Ts (2) Tj ET", "x2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := minimalPDF(tt.content)
			doc, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), Range{})
			if err != nil {
				t.Fatal(err)
			}
			want := "--- Page 1 of 1 ---\n" + tt.want
			if doc.Text != want {
				t.Errorf("got %q, want %q", doc.Text, want)
			}
		})
	}
}
