package pdftools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// Workspace is what read_pdf needs of *safety.Workspace: confinement and
// symlink resolution stay its job.
type Workspace interface {
	Rel(path string) (string, error)
	Open(path string) (*os.File, error)
}

var _ Workspace = (*safety.Workspace)(nil)

// ReadArgs are read_pdf's arguments.
type ReadArgs struct {
	Path      string `json:"path" jsonschema:"description=PDF file to read\\, relative to the workspace root."`
	FirstPage int    `json:"first_page,omitempty" jsonschema:"description=First page to read (1-based). Default 1.,minimum=1"`
	LastPage  int    `json:"last_page,omitempty" jsonschema:"description=Last page to read (inclusive). Default: as many pages as fit (at most 30).,minimum=1"`
}

// ReadName is read_pdf's name.
const ReadName = "read_pdf"

// NewRead returns read_pdf, which reads the text of a PDF in ws.
func NewRead(ws Workspace) tools.Tool {
	return tools.New(ReadName,
		"Read the text of a PDF file in the workspace, page by page, each page under a '--- Page N of M ---' marker. Reads up to 30 pages per call; use first_page and last_page for other parts. Scanned pages without a text layer are reported as such.",
		func(ctx context.Context, a ReadArgs) (tools.Result, error) { return readPDF(ctx, ws, a) },
		tools.ReadOnly(),
		tools.WithArgAliases("first_page", "page", "from_page", "start_page", "from"),
		tools.WithArgAliases("last_page", "to_page", "end_page", "to"),
	)
}

func readPDF(ctx context.Context, ws Workspace, a ReadArgs) (tools.Result, error) {
	if strings.TrimSpace(a.Path) == "" {
		return tools.Result{}, errors.New(`"path" is empty: give a PDF path relative to the workspace root`)
	}
	r, err := ws.Rel(a.Path)
	if err != nil {
		return tools.Result{}, err
	}
	f, err := ws.Open(r)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return tools.Result{}, fmt.Errorf("%s does not exist; use list_files or find_files to find the PDF", r)
		}
		return tools.Result{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return tools.Result{}, err
	}
	if st.IsDir() {
		return tools.Result{}, fmt.Errorf("%s is a directory, not a PDF", r)
	}
	// Each page is reported as it is read, as read_file reports its
	// chunks: a long or slow document shows how far it has come.
	var onPage func(page, planned, pages int)
	if tools.Reporting(ctx) {
		done := 0
		onPage = func(page, planned, pages int) {
			done++
			tools.Report(ctx, tools.Progress{Tool: ReadName, Path: r, Done: float64(done), Total: float64(planned),
				Message: fmt.Sprintf("Reading %s page %d of %d", r, page, pages)})
		}
	}
	doc, err := extract(ctx, f, st.Size(), Range{First: a.FirstPage, Last: a.LastPage}, onPage)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", r, err)
	}
	text := format(r, doc)
	return tools.Result{Text: text, Meta: tools.Meta{Tool: ReadName, Path: r, Bytes: st.Size(), Truncated: doc.Truncated}}, nil
}

// format renders doc for a model: a header naming the source, its title
// and the pages shown, the text, and how to read on when pages remain.
func format(source string, doc Doc) string {
	const tool = ReadName
	var b strings.Builder
	fmt.Fprintf(&b, "%s", source)
	if doc.Title != "" {
		fmt.Fprintf(&b, " (%q)", doc.Title)
	}
	fmt.Fprintf(&b, ": pages %d-%d of %d\n", doc.First, doc.Last, doc.Pages)
	b.WriteString(doc.Text)
	if doc.EmptyPages > 0 {
		fmt.Fprintf(&b, "\n[%d of the pages shown have no text layer; they are probably scanned images.]", doc.EmptyPages)
	}
	if doc.Truncated {
		fmt.Fprintf(&b, "\n[Stopped after page %d (one call reads at most 30 pages or 200 KiB of text). To read on, call %s with first_page=%d.]", doc.Last, tool, doc.Last+1)
	} else if doc.Last < doc.Pages {
		fmt.Fprintf(&b, "\n[%d more pages after page %d; call %s with first_page=%d to read them.]", doc.Pages-doc.Last, doc.Last, tool, doc.Last+1)
	}
	return b.String()
}
