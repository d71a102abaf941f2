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
