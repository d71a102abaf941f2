package pdftools

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func extractFile(t *testing.T, name string, rg Range) (Doc, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Extract(context.Background(), bytes.NewReader(data), int64(len(data)), rg)
}

// wantWords is the body text of twocol.ms in reading order.
func wantWords(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("testdata/twocol.ms")
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, ".") {
			words = append(words, wordRE.FindAllString(line, -1)...)
		}
	}
	return words
}

var wordRE = regexp.MustCompile(`[A-Za-z]+[0-9]*`)

// inOrder is the length of the longest common subsequence of want and
// got's words, after joining words hyphenated across lines: how many
// words came out, in reading order.
func inOrder(got string, want []string) int {
	words := wordRE.FindAllString(strings.ReplaceAll(got, "-\n", ""), -1)
	prev := make([]int, len(words)+1)
	cur := make([]int, len(words)+1)
	for _, w := range want {
		for j, g := range words {
			if w == g {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(words)]
}

func TestExtractReadingOrder(t *testing.T) {
	want := wantWords(t)
	tests := []struct {
		file    string
		minFrac float64 // of the words, in order
	}{
		{"twocol.pdf", 1.0},                  // ToUnicode fonts, two columns
		{"aes128-no-user-password.pdf", 1.0}, // same file, encrypted
		{"rc4-128-no-user-password.pdf", 1.0},
		{"twocol-ghostscript.pdf", 1.0}, // justified lines: word gaps hide in character spacing and Td moves
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := extractFile(t, tt.file, Range{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Pages != 3 || doc.First != 1 || doc.Last != 3 || doc.Truncated {
				t.Errorf("pages = %d, shown %d-%d, truncated %v; want 3, 1-3, false", doc.Pages, doc.First, doc.Last, doc.Truncated)
			}
			n := inOrder(doc.Text, want)
			if frac := float64(n) / float64(len(want)); frac < tt.minFrac {
				t.Errorf("%d of %d words in reading order (%.0f%%), want ≥ %.0f%%\n%s", n, len(want), 100*frac, 100*tt.minFrac, doc.Text)
			}
			// Columns never interleave: every Left paragraph precedes every Right one.
			if l, r := strings.LastIndex(doc.Text, "Left13"), strings.Index(doc.Text, "Right00"); l < 0 || r < 0 || l > r {
				t.Errorf("Left13 at %d, Right00 at %d: columns out of order", l, r)
			}
			for p := 1; p <= 3; p++ {
				if !strings.Contains(doc.Text, "--- Page "+string(rune('0'+p))+" of 3 ---") {
					t.Errorf("no marker for page %d", p)
				}
			}
		})
	}
}

func TestExtractPageRange(t *testing.T) {
	doc, err := extractFile(t, "twocol.pdf", Range{First: 3, Last: 3})
	if err != nil {
		t.Fatal(err)
	}
	if doc.First != 3 || doc.Last != 3 || strings.Contains(doc.Text, "Page 2 of") || !strings.Contains(doc.Text, "Kestrel") {
		t.Errorf("page 3 only: got %d-%d\n%s", doc.First, doc.Last, doc.Text)
	}
	if doc.Title != "" && doc.Title != "Tether Column Test" {
		t.Errorf("title = %q", doc.Title)
	}
}

func TestExtractErrors(t *testing.T) {
	tests := []struct {
		file string
		rg   Range
		want error
		text string // in the message
	}{
		{"truncated.pdf", Range{}, ErrNotPDF, "truncated"},
		{"aes256-user-password.pdf", Range{}, ErrEncrypted, "decrypt"},
		{"aes256-no-user-password.pdf", Range{}, ErrEncrypted, "qpdf --decrypt"},
		{"twocol.pdf", Range{First: 4}, ErrPageRange, "has 3 pages"},
		{"twocol.pdf", Range{First: 3, Last: 2}, ErrPageRange, "first_page ≤ last_page"},
		{"twocol.ms", Range{}, ErrNotPDF, "not a PDF"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := extractFile(t, tt.file, tt.rg)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %v; want %v containing %q", err, tt.want, tt.text)
			}
		})
	}
}

func TestExtractTooLarge(t *testing.T) {
	_, err := Extract(context.Background(), bytes.NewReader(nil), MaxFileBytes+1, Range{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

// TestExtractDamaged overwrites stretches of a good file with garbage:
// each result is text or an error, never a panic.
func TestExtractDamaged(t *testing.T) {
	good, err := os.ReadFile("testdata/twocol.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(good); off += len(good) / 40 {
		bad := bytes.Clone(good)
		for i := off; i < min(off+64, len(bad)); i++ {
			bad[i] = byte(i * 7)
		}
		if _, err := Extract(context.Background(), bytes.NewReader(bad), int64(len(bad)), Range{}); err != nil && !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrNotPDF) && !errors.Is(err, ErrEncrypted) {
			t.Errorf("offset %d: unclassified error %v", off, err)
		}
	}
}

func FuzzExtract(f *testing.F) {
	for _, name := range []string{"twocol.pdf", "truncated.pdf", "aes128-no-user-password.pdf"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// A small graph to mutate: the fuzzer finds cycles and odd kinds of
	// objects faster from a page tree than from a whole document.
	f.Add(buildPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream("BT /F1 12 Tf 72 720 Td (Hello) Tj ET"), font}))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Only a hang fails on time: the seeds alone take seconds under
		// -race on a loaded machine. Cost is bounded by the walker's
		// operator budget and measured by the benchmarks.
		start := time.Now()
		doc, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), Range{})
		if d := time.Since(start); d > time.Minute {
			t.Fatalf("extraction took %v", d)
		}
		if err == nil && len(doc.Text) > MaxOutputBytes*2 {
			t.Fatalf("output %d bytes exceeds the budget", len(doc.Text))
		}
	})
}
