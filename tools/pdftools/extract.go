package pdftools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Limits of one extraction. A PDF is parsed from its cross-reference
// table on demand, so memory follows the pages read, not the file; the
// file size cap bounds what a damaged table can make the parser allocate.
const (
	MaxFileBytes    = 64 << 20
	MaxPagesPerCall = 30
	MaxOutputBytes  = 200 << 10
)

// Errors callers can test with errors.Is.
var (
	ErrNotPDF    = errors.New("not a readable PDF")
	ErrEncrypted = errors.New("encrypted PDF")
	ErrDamaged   = errors.New("damaged PDF")
	ErrTooLarge  = errors.New("PDF too large")
	ErrPageRange = errors.New("bad page range")
)

// Range selects pages, 1-based and inclusive. Zero First means 1; zero
// Last means as many pages as one call returns.
type Range struct {
	First, Last int
}

// Doc is the text of the pages read.
type Doc struct {
	Title       string
	Pages       int // pages in the document
	First, Last int // pages shown; Last < First when the document is empty
	// Text is the pages' text, each page under a "--- Page N of M ---"
	// marker.
	Text string
	// Truncated is set when pages after Last were asked for (or exist,
	// when no Last was given) but not read: the output budget ran out.
	Truncated bool
	// EmptyPages counts shown pages that had no extractable text (scans).
	EmptyPages int
	// CutPages counts shown pages whose content was too long to read to
	// the end (forms drawing forms, or millions of operators); their
	// text stops where reading did, and says so.
	CutPages int
}

// Extract reads the text of the pages rg selects from the PDF in r.
// A malformed or truncated file, a password-protected one, and page
// numbers past the end are errors that say so.
func Extract(ctx context.Context, r io.ReaderAt, size int64, rg Range) (doc Doc, err error) {
	return extract(ctx, r, size, rg, nil)
}

// extract is Extract with onPage called after each page is read, with its
// number, how many pages this call means to read and how many the
// document has, so a caller can report progress on a long document.
func extract(ctx context.Context, r io.ReaderAt, size int64, rg Range, onPage func(page, planned, pages int)) (doc Doc, err error) {
	if size > MaxFileBytes {
		return Doc{}, fmt.Errorf("%w: %d bytes; the limit is %d MiB", ErrTooLarge, size, MaxFileBytes>>20)
	}
	if rg.First < 0 || rg.Last < 0 || (rg.Last != 0 && rg.Last < max(rg.First, 1)) {
		return Doc{}, fmt.Errorf("%w: pages %d-%d; give 1-based first_page ≤ last_page", ErrPageRange, rg.First, rg.Last)
	}
	// The parser panics on some malformed input; a panic here is a
	// property of the file, reported as such, not a crash of the host.
	defer func() {
		if p := recover(); p != nil {
			doc, err = Doc{}, fmt.Errorf("%w: %v", ErrDamaged, p)
		}
	}()
	rd, err := pdf.NewReader(r, size)
	if err != nil {
		return Doc{}, openError(err)
	}
	pages, err := pageList(rd)
	if err != nil {
		return Doc{}, err
	}
	n := len(pages)
	doc = Doc{Pages: n, Title: strings.TrimSpace(rd.Trailer().Key("Info").Key("Title").Text())}
	first := max(rg.First, 1)
	if n == 0 {
		return Doc{}, fmt.Errorf("%w: the document has no pages", ErrDamaged)
	}
	if first > n {
		return Doc{}, fmt.Errorf("%w: first_page %d is past the end: the document has %d pages", ErrPageRange, first, n)
	}
	last := rg.Last
	if last == 0 || last > n {
		last = n
	}
	last = min(last, first+MaxPagesPerCall-1)

	var b strings.Builder
	doc.First, doc.Last = first, first-1
	for i := first; i <= last; i++ {
		if err := ctx.Err(); err != nil {
			return Doc{}, err
		}
		if i > first && b.Len() >= MaxOutputBytes {
			break
		}
		text, cut := pageText(pages[i-1], MaxOutputBytes)
		text = strings.TrimSpace(text)
		fmt.Fprintf(&b, "--- Page %d of %d ---\n", i, n)
		if cut {
			doc.CutPages++
			text += fmt.Sprintf("\n[the rest of this page was not read: its content runs more than %d operators]", maxPageOps)
		}
		if text == "" {
			doc.EmptyPages++
			b.WriteString("[no extractable text on this page: it may be a scanned image]\n")
		} else {
			b.WriteString(text)
			b.WriteString("\n")
		}
		doc.Last = i
		if onPage != nil {
			onPage(i, last-first+1, n)
		}
	}
	wantLast := rg.Last
	if wantLast == 0 || wantLast > n {
		wantLast = n
	}
	doc.Truncated = doc.Last < wantLast
	doc.Text = strings.TrimRight(b.String(), "\n")
	return doc, nil
}

// openError turns the parser's opening errors into ones a model or a
// person can act on.
func openError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, pdf.ErrInvalidPassword):
		return fmt.Errorf("%w: it needs a password to open; ask the user for a decrypted copy (qpdf --decrypt --password=… in.pdf out.pdf)", ErrEncrypted)
	case strings.Contains(msg, "encrypt"):
		return fmt.Errorf("%w: its encryption (%s) is not supported; ask the user for a decrypted copy (qpdf --decrypt in.pdf out.pdf)", ErrEncrypted, msg)
	case strings.Contains(msg, "not a PDF"), strings.Contains(msg, "missing %%EOF"), strings.Contains(msg, "startxref"):
		return fmt.Errorf("%w: %s (the file may be truncated or not a PDF at all)", ErrNotPDF, msg)
	}
	return fmt.Errorf("%w: %s", ErrDamaged, msg)
}
