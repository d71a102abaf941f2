package pdftools

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// BenchmarkExtract reads all three pages of the two-column test PDF.
func BenchmarkExtract(b *testing.B) {
	data, err := os.ReadFile("testdata/twocol.pdf")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), Range{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtractProducers reads the pdfTeX manual pages and the
// Chromium document: kerned TJ arrays, and CID fonts with ToUnicode maps.
func BenchmarkExtractProducers(b *testing.B) {
	for _, name := range []string{"debian/why3-pdftex.pdf", "producers/chromium.pdf"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), Range{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
