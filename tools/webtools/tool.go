package webtools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/tools"
)

// read_webpage's window over a page's lines, as read_file's over a file.
const (
	ChunkLines      = 100 // lines per progress report
	DefaultMaxLines = 500 // lines returned when no end_line is given
	MaxLines        = 2000
	maxOutputBytes  = 256 << 10
)

// ReadName is read_webpage's name.
const ReadName = "read_webpage"

// ReadArgs are read_webpage's arguments.
type ReadArgs struct {
	URL       string `json:"url" jsonschema:"description=Full http or https URL of the page."`
	StartLine int    `json:"start_line,omitempty" jsonschema:"description=First line of the page's text to return (1-based). Default 1.,minimum=1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"description=Last line to return (inclusive). Default: 500 lines from start_line.,minimum=1"`
}

// NewRead returns read_webpage, fetching through f. The tool is read-only
// (it changes nothing on the machine) and open-world (it reaches the
// internet, so what it returns is untrusted). Each call declares the URL
// it reads; a call is allowed without asking only when f's AllowDomains
// cover the URL's host, refused when f's rules refuse it, and otherwise
// left for a person to approve.
func NewRead(f *Fetcher) tools.Tool {
	return tools.New(ReadName,
		"Fetch a web page and read it as Markdown (HTML with scripts and navigation removed), or as text for plain text, JSON and PDF. Returns the title, the final URL after redirects and up to 500 lines; use start_line and end_line to read further. Only public internet addresses are reachable.",
		func(ctx context.Context, a ReadArgs) (tools.Result, error) { return f.read(ctx, a) },
		tools.ReadOnly(),
		tools.OpenWorld(),
		tools.WithEffects(f.declare),
		tools.WithArgAliases("url", "link", "href", "uri", "address", "page"),
		tools.WithArgAliases("start_line", "line", "from", "offset", "start"),
		tools.WithArgAliases("end_line", "to", "end"),
	)
}

func (f *Fetcher) read(ctx context.Context, a ReadArgs) (tools.Result, error) {
	if strings.TrimSpace(a.URL) == "" {
		return tools.Result{}, fmt.Errorf(`"url" is empty: give a full http or https URL`)
	}
	start := max(a.StartLine, 1)
	end := a.EndLine
	switch {
	case end == 0:
		end = start + DefaultMaxLines - 1
	case end < start:
		return tools.Result{}, fmt.Errorf("end_line %d is before start_line %d", end, start)
	case end-start+1 > MaxLines:
		end = start + MaxLines - 1
	}
	p, err := f.Fetch(ctx, a.URL)
	if err != nil {
		return tools.Result{}, err
	}
	lines := strings.Split(p.Text, "\n")
	total := len(lines)
	if p.Text == "" {
		total = 0
	}
	if start > max(total, 1) {
		return tools.Result{}, fmt.Errorf("start_line %d is past the end: the page has %d lines", start, total)
	}
	meta := tools.Meta{Tool: ReadName, Path: p.FinalURL, Bytes: p.Bytes, TotalLines: total}
	var b strings.Builder
	if p.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.Title)
	}
	fmt.Fprintf(&b, "URL: %s\n", p.FinalURL)
	if p.FinalURL != p.URL {
		fmt.Fprintf(&b, "(redirected from %s)\n", p.URL)
	}
	if total == 0 {
		fmt.Fprintf(&b, "The page (%s, %d bytes) has no readable text.", p.ContentType, p.Bytes)
		return tools.Result{Text: b.String(), Meta: meta}, nil
	}
	last := start - 1
	var body strings.Builder
	chunk := func(from, to int) {
		tools.Report(ctx, tools.Progress{Tool: ReadName, Path: p.FinalURL, StartLine: from, EndLine: to})
		meta.Chunks = append(meta.Chunks, tools.LineRange{Start: from, End: to})
	}
	for i := start; i <= min(end, total) && body.Len() <= maxOutputBytes; i++ {
		body.WriteString(lines[i-1])
		body.WriteByte('\n')
		last = i
		if (i-start+1)%ChunkLines == 0 {
			chunk(i-ChunkLines+1, i)
		}
	}
	if n := (last - start + 1) % ChunkLines; n != 0 {
		chunk(last-n+1, last)
	}
	meta.StartLine, meta.EndLine = start, last
	fmt.Fprintf(&b, "Content: %s (%s), lines %d-%d of %d\n\n", p.Kind, p.ContentType, start, last, total)
	b.WriteString(body.String())
	if last < total {
		meta.Truncated, meta.OmittedLines = true, total-last
		fmt.Fprintf(&b, "[Showing lines %d-%d of %d. To read on, call read_webpage with the same url and start_line=%d.]", start, last, total, last+1)
	}
	return tools.Result{Text: strings.TrimRight(b.String(), "\n"), Meta: meta}, nil
}
