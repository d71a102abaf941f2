package pdftools

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// buildPDF assembles a PDF from numbered object bodies (1 is the
// catalog), with a correct cross-reference table, so that each case
// reaches the parser's object graph rather than failing at the table.
func buildPDF(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

// selfDrawingForm is form XObject number obj, whose content draws
// itself n times.
func selfDrawingForm(obj, n int) string {
	content := strings.Repeat("/X0 Do ", n)
	return fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /X0 %d 0 R >> >> /Length %d >>\nstream\n%s\nendstream", obj, len(content), content)
}

const font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

// TestAdversarialPDFs: crafted object graphs that have hung or crashed
// PDF readers (cyclic page trees and parents, self-referencing objects,
// absurd counts, an exponential page tree) end in the text or a clear
// error, never in a loop.
func TestAdversarialPDFs(t *testing.T) {
	text := stream("BT /F1 12 Tf 72 720 Td (Hello) Tj ET")
	// Each Pages node lists the next one twice: 2^40 leaves from a few
	// dozen objects.
	dag := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	for i := 2; i < 42; i++ {
		dag = append(dag, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R %d 0 R] /Count 4 >>", i+1, i+1))
	}
	dag = append(dag, "<< /Type /Page /Contents 43 0 R >>", text)
	for _, tt := range []struct {
		name string
		objs []string
		want string // in the text, or else in the error
	}{
		{"well formed", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>", text, font}, "Hello"},
		{"kids cycle", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>", text, font}, "nests deeper than 64 levels"},
		{"parent cycle", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>",
			"<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>", text, font}, "chain of parents is longer"},
		{"self reference", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 5 0 R >>",
			"<< /Type /Page /Parent 2 0 R /Resources 4 0 R /Contents 4 0 R >>", "4 0 R", "5 0 R"}, "damaged PDF"},
		{"contents array cycle", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>", "[4 0 R]", font}, "damaged PDF"},
		{"huge count", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 999999999 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>", text, font}, "Hello"},
		{"negative count", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count -3 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", text, font}, "Hello"},
		{"kids not an array", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids 3 0 R /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", text, font}, "no pages"},
		{"deep nesting", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /X " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + " >>", text, font}, "damaged PDF"},
		{"exponential tree", dag, "more than 131072 nodes"},
		// A form that draws itself ten times: 10^12 draws unless the walk
		// is bounded; the text drawn before the bound is kept.
		{"self-drawing form", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X0 6 0 R >> >> /Contents 4 0 R >>",
			stream("BT /F1 12 Tf 72 720 Td (Hello) Tj ET /X0 Do"), font,
			selfDrawingForm(6, 10)}, "Hello\n[the rest of this page was not read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := buildPDF(tt.objs)
			type result struct {
				doc Doc
				err error
			}
			done := make(chan result, 1)
			go func() {
				doc, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), Range{})
				done <- result{doc, err}
			}()
			select {
			case r := <-done:
				got := r.doc.Text
				if r.err != nil {
					got = r.err.Error()
				}
				if !strings.Contains(got, tt.want) {
					t.Errorf("got %q (pages %d), want %q", got, r.doc.Pages, tt.want)
				}
			case <-time.After(time.Minute):
				t.Fatal("Extract did not return: it loops on this file")
			}
		})
	}
}
