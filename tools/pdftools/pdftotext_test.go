package pdftools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// producerFiles are PDFs written by different producers, each placing
// words its own way: the same text through six producers
// (testdata/producers/README.md), the groff test documents, and a blind
// batch of pages cut from manuals Debian ships, whose producers were not
// consulted when the walker was written (testdata/debian/README.md gives
// package, pages and licence of each).
var producerFiles = []struct {
	file, producer string
	// rotated lists pages whose text is drawn rotated in the page's own
	// coordinates, which pdftotext cuts into pieces of words in both its
	// readings; on them the test checks these lines instead.
	rotated map[int][]string
}{
	{"producers/pdftex.pdf", "pdfTeX: TJ offsets for word gaps, ligatures", nil},
	{"producers/libreoffice.pdf", "LibreOffice: TrueType subsets", nil},
	{"producers/chromium.pdf", "Chromium/Skia: Identity-H CID fonts with W arrays", nil},
	{"producers/fop.pdf", "Apache FOP: standard-14 fonts without embedding", nil},
	{"producers/reportlab.pdf", "ReportLab: standard-14 fonts, justified by Tw", nil},
	{"producers/ghostscript.pdf", "Ghostscript ps2pdf: character spacing and moves", nil},
	{"twocol.pdf", "groff gropdf: Td moves between kerned pieces", nil},
	{"twocol-ghostscript.pdf", "groff through Ghostscript", nil},
	// The blind batch: why3-doc-pdf, camlidl-doc, docbook-xsl-doc-pdf,
	// python-reportlab-doc, ruby-prawn-doc and siscone-doc-pdf (Debian 12).
	{"debian/why3-pdftex.pdf", "why3 manual, pdfTeX 1.40.24", nil},
	{"debian/camlidl-pdftex013.pdf", "camlidl manual, pdfTeX 0.13d", nil},
	{"debian/docbook-dblatex-pdftex.pdf", "DocBook XSL reference, dblatex and pdfTeX 1.40.10", nil},
	{"debian/reportlab-userguide.pdf", "ReportLab user guide", nil},
	{"debian/prawn-manual.pdf", "Prawn manual", map[int][]string{2: {
		"Rotated 0°", "Rotated 30°", "Rotated 60°", "Rotated 90°", "Rotated 120°", "Rotated 150°",
		"Rotated 180°", "Rotated 210°", "Rotated 240°", "Rotated 270°", "Rotated 300°", "Rotated 330°",
	}}},
	{"debian/siscone-ghostscript.pdf", "SISCone reference, Doxygen LaTeX through Ghostscript", nil},
}

// minWordShare is the share of pdftotext's words, on every page, that
// read_pdf must find too.
const minWordShare = 0.95

// TestWordsMatchPdftotext compares, page by page, the words Extract finds
// with the words poppler's pdftotext finds in the same file: the share of
// pdftotext's words (as a multiset) that Extract also has.
func TestWordsMatchPdftotext(t *testing.T) {
	pdftotext := needPdftotext(t)
	for _, f := range producerFiles {
		t.Run(filepath.Base(f.file), func(t *testing.T) {
			path := filepath.Join("testdata", f.file)
			want, err := pdftotextPages(pdftotext, path)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := pdftotextPages(pdftotext, path, "-raw")
			if err != nil {
				t.Fatal(err)
			}
			doc, err := extractFile(t, f.file, Range{})
			if err != nil {
				t.Fatal(err)
			}
			got := docPages(doc)
			if len(got) != len(want) || len(raw) != len(want) {
				t.Fatalf("%d pages, pdftotext has %d (%d raw)", len(got), len(want), len(raw))
			}
			worst, sum, scored, order := 1.0, 0.0, 0, 1.0
			for i := range want {
				if lines, ok := f.rotated[i+1]; ok {
					for _, l := range lines {
						if !strings.Contains(got[i]+"\n", l+"\n") {
							t.Errorf("page %d: no line %q in\n%s", i+1, l, got[i])
						}
					}
					continue
				}
				g := words(got[i])
				share, w := pageShare(words(want[i]), words(raw[i]), g)
				worst, sum, scored = min(worst, share), sum+share, scored+1
				order = min(order, orderedShare(words(raw[i]), g))
				if share < minWordShare {
					t.Errorf("page %d: %.1f%% of pdftotext's %d words (want ≥ %.0f%%); missing %s\nread_pdf:\n%s", i+1, 100*share, len(w), 100*minWordShare, missing(w, g, 12), got[i])
				}
			}
			t.Logf("%s: worst page %.1f%%, mean %.1f%%, in pdftotext -raw's order %.1f%% on the worst page (%s)", f.file, 100*worst, 100*sum/float64(scored), 100*order, f.producer)
		})
	}
}

// needPdftotext returns pdftotext's path, skipping the test without it
// (failing under CI, which installs it).
func needPdftotext(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftotext is missing under CI: .ci/run must install poppler-utils")
		}
		t.Skip("pdftotext not installed: apt-get update && apt-get install -y poppler-utils")
	}
	return p
}

// pageShare is the share of pdftotext's words on a page that got has:
// the better of its two readings, the default one (laid out in reading
// order) and -raw (in content stream order). pdftotext's layout analysis
// cuts rotated text into fragments of words ("Th", "ated", "rot") that
// -raw keeps whole, and -raw does not join words hyphenated across
// lines, which the default does. It returns the reading it scored.
func pageShare(layout, raw, got []string) (float64, []string) {
	a, b := multisetShare(layout, got), multisetShare(raw, got)
	if b > a {
		return b, raw
	}
	return a, layout
}

// pdftotextPages returns each page's text as pdftotext reads it.
func pdftotextPages(pdftotext, path string, flags ...string) ([]string, error) {
	args := append(append([]string{"-enc", "UTF-8"}, flags...), path, "-")
	out, err := exec.Command(pdftotext, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("pdftotext %s: %w", path, err)
	}
	// pdftotext ends every page with a form feed.
	pages := strings.Split(string(out), "\f")
	return pages[:len(pages)-1], nil
}

// lineEndHyphen is a word hyphenated at the end of a line: a letter, the
// hyphen, and a lower-case letter starting the next line.
var lineEndHyphen = regexp.MustCompile(`(\pL)-\n(\p{Ll})`)

var pageMarker = regexp.MustCompile(`(?m)^--- Page \d+ of \d+ ---\n?`)

// docPages splits Extract's text at its page markers.
func docPages(doc Doc) []string {
	parts := pageMarker.Split(doc.Text, -1)
	return parts[1:]
}

// words are a text's words as a reader would search for them: folded with
// NFKC, words hyphenated across a line end joined (pdftotext joins them),
// and split at anything that is not a letter, mark or digit.
func words(text string) []string {
	text = norm.NFKC.String(text)
	text = lineEndHyphen.ReplaceAllString(text, "$1$2")
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
}

// multisetShare is the share of want's words that got has, each word
// counted as often as it occurs.
func multisetShare(want, got []string) float64 {
	if len(want) == 0 {
		return 1
	}
	have := map[string]int{}
	for _, w := range got {
		have[w]++
	}
	n := 0
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// orderedShare is the share of want's words that got has in the same
// order: their longest common subsequence over len(want).
func orderedShare(want, got []string) float64 {
	if len(want) == 0 {
		return 1
	}
	prev := make([]int, len(got)+1)
	cur := make([]int, len(got)+1)
	for _, w := range want {
		for j, g := range got {
			if w == g {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(got)]) / float64(len(want))
}

// missing lists up to n of want's words that got lacks.
func missing(want, got []string, n int) string {
	have := map[string]int{}
	for _, w := range got {
		have[w]++
	}
	var out []string
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
		} else if len(out) < n {
			out = append(out, w)
		}
	}
	return fmt.Sprintf("%q", out)
}

// TestWordsMatchPdftotextFiles scores the PDFs named in
// $PDFTOTEXT_COMPARE (comma-separated paths) the same way, page by page,
// and logs each page's share: a way to measure the walker on documents
// the repository does not ship.
func TestWordsMatchPdftotextFiles(t *testing.T) {
	list := os.Getenv("PDFTOTEXT_COMPARE")
	if list == "" {
		t.Skip("set PDFTOTEXT_COMPARE to a comma-separated list of PDF paths")
	}
	pdftotext := needPdftotext(t)
	for _, path := range strings.Split(list, ",") {
		want, err := pdftotextPages(pdftotext, path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		raw, err := pdftotextPages(pdftotext, path, "-raw")
		if err != nil || len(raw) != len(want) {
			t.Errorf("%s: pdftotext -raw: %v", path, err)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for first := 1; first <= len(want); {
			doc, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), Range{First: first, Last: len(want)})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got = append(got, docPages(doc)...)
			first = doc.Last + 1
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d pages, pdftotext has %d", path, len(got), len(want))
			continue
		}
		var sum float64
		worst, worstPage := 1.0, 0
		var low []string
		for i := range want {
			share, _ := pageShare(words(want[i]), words(raw[i]), words(got[i]))
			sum += share
			if share < worst {
				worst, worstPage = share, i+1
			}
			if share < minWordShare {
				low = append(low, fmt.Sprintf("%d:%.0f%%", i+1, 100*share))
			}
		}
		t.Logf("%s: mean %.1f%%, worst page %d %.1f%%, %d of %d pages under %.0f%% %v", path, 100*sum/float64(len(want)), worstPage, 100*worst, len(low), len(want), 100*minWordShare, low)
	}
}
